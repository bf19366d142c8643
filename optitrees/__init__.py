"""optitrees: interpretable classifiers learned by mixed-integer optimization."""
