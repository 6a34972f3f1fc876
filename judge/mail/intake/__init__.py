"""Mail coming in: the SMTP/LMTP listener that stores each message before it answers 250."""
