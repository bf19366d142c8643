"""The tree learners that need no solver: greedy induction (C4.5, CART with the t-test rule), local and memetic
search (TAO, TMO) and Monte Carlo tree search (UCT-DT)."""
