"""Risk score cards by mixed-integer optimization: the optimal risk score on binary features (4.5, :mod:`.ors`,
its cutting-plane master :mod:`.ors_master` and the exact loss on distinct rows :mod:`.aggregate_loss`) and the
generalized risk score with learned thresholds (4.16, :mod:`.ogrs`, its candidate thresholds
:mod:`.ogrs_candidates`); :mod:`.shared` holds what both models share."""
