"""The screens where people play and watch: `uno-play` in the terminal (`terminal`) and `uno-web` in the
browser (`web`, with its page in `static/`). A screen is a client of the players (`uno_env.agents`), never a
player, and shows a seat only what `uno_env.render.table_view` decides it may see.
"""
