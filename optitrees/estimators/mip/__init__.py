"""The estimators fitted by mixed-integer optimization: loss-optimal trees (OLCT, MARGOT, the general model and its
regressor), OCT and OCT-H, the risk scores (ORS, OGRS), ``OLCTClassifierCV``, and :class:`~._template.MIPClassifier`
they share. Their fit runs the pipeline of :mod:`optitrees.estimators.mip_fit`."""
