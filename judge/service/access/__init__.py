"""Who may do what in a game: passwords, sign-on guessing, privacy, web passes, address confirmation."""
