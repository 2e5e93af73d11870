"""DAGs of index-notation statements (GOGETA): fusion of pipelineable edges and more."""
