"""Who the judge may write to, and how often: the reply cap and the screen of recipients."""
