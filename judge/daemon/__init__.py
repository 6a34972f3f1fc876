"""``judge serve``: its processes (intake, worker, sender, web view), and how they start, watch
and stop each other."""
