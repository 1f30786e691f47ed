"""What every process needs at run time: paths, logging and metrics, server options, state shared through Redis,
path confinement."""
