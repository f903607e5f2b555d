-- The namespaces an operator created (ax namespace create). The default namespace is not listed:
-- it always exists. Ingest reads commands only from the topics of listed namespaces.
CREATE TABLE ax_namespace (
  name           VARCHAR(31)  NOT NULL,
  created_by     VARCHAR(128) NOT NULL,
  created_at_ms  BIGINT       NOT NULL,
  PRIMARY KEY (name)
);
