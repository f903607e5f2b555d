-- Sharded firings (a task's "sharding": {"total": N}). The firing's own row (a slot or RUN_NOW
-- instance) keeps shard_total = N once fanned out and stays RUNNING, owned by no dispatcher
-- (owner 'ax-shards', no lease), until its last shard ends; each shard is a row of its own
-- (ShardIds: <firing>#<index>of<total>) with shard_of = the firing's id. Shards are found from
-- their firing by their deterministic ids (primary key), so no index is added: nullable columns
-- at the end of the table, added in place.
ALTER TABLE ax_instance
  ADD COLUMN shard_of    VARCHAR(160) NULL,
  ADD COLUMN shard_index INT          NULL,
  ADD COLUMN shard_total INT          NULL;
