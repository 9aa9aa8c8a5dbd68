"""negtui serve: the SSH transport of training: the server, one app process per connection on its own
pseudo-terminal (forked from a server of warm processes), one process per table, and the data directory's
lock.  The class it serves is negtui.classroom's; the apps it runs are negtui.trainee's and negtui.console's."""
