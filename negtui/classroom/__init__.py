"""The classroom's model: courses and their exercises, trainees and their keys, the results database (games,
decisions, tables, attempts, notices), scoring and the class debrief.  Neither the SSH transport (serve/)
nor the apps (trainee/, console/) own it: each reads and writes the class through it."""
