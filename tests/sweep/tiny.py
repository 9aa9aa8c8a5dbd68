"""The small generated games the sweep tests play: four players with two actions, six goals, two rounds
(a game in milliseconds).  A spec writes `[grid]` then TINY_GAMES then the axes it varies."""

TINY_GAMES = """players = [4]
actions = [2]
goals = [6]
rounds = [2]
factors = [3]
zipf = [1.6]
"""
