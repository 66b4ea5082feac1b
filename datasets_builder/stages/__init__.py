"""The stages of a build, one module each, in the order they run: synthesize, screen, tasks, teach,
mutants (the repair stage), timing, outputs (the assemble stage). Each takes the build's shared
BuildContext (context.py); build.py composes them."""
