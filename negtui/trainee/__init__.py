"""The trainee's app over SSH: enrolment, the course lobby, an exercise's briefing, a table to sit at, and the
games with coaching and the debrief (the games themselves are the ordinary app's)."""
