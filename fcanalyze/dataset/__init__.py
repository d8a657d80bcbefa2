"""The sweep dataset: Parquet part files of one row per job, a local sweep's and a cluster sweep's."""
