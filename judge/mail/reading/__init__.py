"""Reading a received mail: headers, its text part, what of the body is for the judge, robots, bounds."""
