"""negtui serve: negotiator training over SSH — server, courses, results."""
