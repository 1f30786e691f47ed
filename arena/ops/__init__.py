"""Operations: operators and their sessions, the audit log, job runs and the job queue."""
