"""hbase-rowkey from Python: the same native core as the Java library and the RegionServers.

Without any server: ``Schema(text)``, ``schema.encode(row)``, ``schema.decode(key)``,
``schema.where(clause)`` (the RegionServer's own parser and messages), ``schema.explain(clause)``
and ``filter_string(clause[, schema])``.

Through HBase's Thrift1 gateway with happybase (``pip install hbase-rowkey[happybase]``):
``scan(table, clause)`` yields decoded rows, ``aggregate(table, clause, group_by, aggregates)``
folds inside the regions, ``schema_of(table)`` reads a table's catalog.
"""

from ._native import FORMAT_VERSION, Aggregate, InternalError, RowKeyError, Schema, filter_string
from ._gateway import Row, aggregate, explain, schema_of, scan

__all__ = [
    "FORMAT_VERSION",
    "Aggregate",
    "InternalError",
    "Row",
    "RowKeyError",
    "Schema",
    "aggregate",
    "explain",
    "filter_string",
    "scan",
    "schema_of",
]
