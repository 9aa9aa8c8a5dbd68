"""The random game generator: the paper's latent-factor games, with every axis and the poison pill.

    from negtui.generator import GeneratorParams, generate
    scenario = generate(GeneratorParams(players=10, actions=5, goals=15, seed=3, rules="reference"))

Both rule sets draw the same latent-factor model from one `numpy.random.default_rng(seed)` stream in the
reference's order (docs/reference.md §2), so G, goal kinds and requirements are identical across
rule sets and across the sweep's axes (a paired design). They differ only where the reference is
defective.

`rules="reference"` reproduces the reference's `generate_game_config` bit for bit, including:
- the poison-pill refill drawing its cells with Python's `random.sample` after `random.seed(seed)` (we use
  a local `random.Random(seed)`, which gives the same sequence and leaves the global generator alone);
- the turn order written into the scenario as an explicit `protocol.schedule`: `list(range(N))` shuffled
  once by `random.Random(seed).shuffle`, repeated `rounds` times, computed by the engine's own
  `negtui.engine.game.round_robin` (the reference runner's cap of 10 rounds is not applied here: `rounds`
  is taken as given);
- a poison pill whose receiver has a single action is refused with GeneratorError. The reference crashes
  when every player has one action, and otherwise builds a poison goal on a padding cell that can never
  be committed; neither is a valid scenario.

`rules="paper"` (the default) fixes those defects:
1. Poison pill on a one-action receiver: the receiver gets a second action (the poison action, labelled
   as added), so the trap has its exact shape. Nothing is drawn differently for this.
2. The refill of goals the trap emptied draws its cells from `rng` (`rng.choice` over the uninvolved
   players' cells, without replacement) instead of Python's `random`, so one seed drives everything. The
   refill count is `rng.integers(2, 4)` under both rule sets.
3. A binary goal left with one requirement after the trap cells are removed stays `all_or_nothing` under
   both rule sets (with one required cell that means the same as linear), so the goal kinds and
   `meta.binary_goals` match the reference's `binary_goals`.
4. No explicit schedule: the protocol carries `seed` and `rounds` and the engine derives the same seeded
   shuffle itself.

Beyond the reference, unknown payoff names, negative seeds and rounds/budget below 1 are refused
(the reference maps an unknown shift to "balanced"). Generated values are integers; the scenario model
stores goal values as floats, so files show e.g. `30.0`. Only non-zero values are written.
"""

from negtui.generator.build import build_scenario, game_arrays, generate
from negtui.generator.params import GeneratorError, GeneratorParams
from negtui.generator.reference import GameArrays, PoisonPill, generate_game_config

__all__ = [
    "GameArrays",
    "GeneratorError",
    "GeneratorParams",
    "PoisonPill",
    "build_scenario",
    "game_arrays",
    "generate",
    "generate_game_config",
]
