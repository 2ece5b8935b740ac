"""What the builds of a CI fleet share: compiler caches and distributed compilation
(:mod:`.remote`), declared as options and applied by each flavour's plan."""
