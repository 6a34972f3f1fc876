"""When games move: the game clock, deadlines and reminders, absences, and the scheduler."""
