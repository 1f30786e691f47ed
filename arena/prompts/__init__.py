"""The prompt pool in the database: import and validation, the live corpus and its embeddings, the monthly
refresh and retirement, operator work on single prompts."""
