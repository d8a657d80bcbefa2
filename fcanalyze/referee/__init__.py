"""The referee: replays a solution move by move from the rules alone, sharing no code with the engine."""
