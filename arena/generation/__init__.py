"""Generation: the model registry, provider adapters, the backfill of missing outputs, its progress, and outputs
imported from elsewhere."""
