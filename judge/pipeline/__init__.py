"""One stored message on its way: the worker claims it, the stages read, screen, cap, run and answer it."""
