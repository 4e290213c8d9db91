"""The TV: the featured live game of each discipline (choice.py: the pure choice; channel.py: the chooser in Redis and the read side)."""
