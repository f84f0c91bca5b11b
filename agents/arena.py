"""The old path of `uno_env.arena.tournament`: deprecated, gone in 0.5.0 (`uno_env.deprecated`)."""

from uno_env.deprecated import alias_module

alias_module(__spec__.name, run=__name__ == "__main__")
