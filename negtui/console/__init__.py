"""The trainer's console, `negtui class`: who is online and where, every table with its progress, the
trainer's steering (start, pause, resume, end, seats, messages), watching a table live, and the class
debrief."""
