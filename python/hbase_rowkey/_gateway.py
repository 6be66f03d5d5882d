"""Queries through HBase's Thrift1 gateway, with happybase tables.

The gateway needs our jar on its class path and ``hbase.thrift.filters`` =
``RowKeyWhere:org.rowkey.hbase.RowKeyWhere`` (``cargo make thrift start`` does both). Every where
clause is checked here first, by the native parser the RegionServer runs, because HBase's Thrift1
handler turns a filter string it cannot parse into ``TApplicationException: Internal error
processing scannerOpenWithScan`` and logs nothing.
"""

import contextlib
from typing import Any, Dict, Iterator, List, NamedTuple, Optional, Sequence, Union

from ._native import Aggregate, RowKeyError, Schema, filter_string

# What RowKeyScanObserver answers (org.rowkey.hbase.CoprocessorWire): the scan attributes and the
# qualifiers of the cells it returns instead of rows. A NUL first: no column of our tables uses one.
_CATALOG_ATTRIBUTE = b"rowkey.catalog"
_CATALOG_QUALIFIER = b"\x00rowkey.catalog"
_AGGREGATE_ATTRIBUTE = b"rowkey.aggregate"
_PARTIAL_QUALIFIER = b"\x00rowkey.aggregate.partial"


class Row(NamedTuple):
    """One row of a scan: its key, the key's fields decoded, and the cells happybase returned."""

    key: bytes
    fields: Dict[str, Any]
    cells: Dict[bytes, bytes]


def _thrift():
    """happybase's Thrift module (loaded by importing happybase), for TScan and the gateway's errors."""
    try:
        import happybase  # noqa: F401
        import Hbase_thrift
    except ImportError as e:
        raise ImportError("hbase_rowkey's gateway helpers need happybase: pip install 'hbase-rowkey[happybase]'") from e
    return Hbase_thrift


def _table_name(table) -> str:
    name = table.name
    return name.decode("utf-8", "replace") if isinstance(name, bytes) else str(name)


def _message(error: BaseException) -> str:
    """What the gateway sent: thriftpy2's exceptions carry it as bytes or str in ``message``
    (a TApplicationException's ``str()`` fails on bytes)."""
    message = getattr(error, "message", None)
    if isinstance(message, bytes):
        message = message.decode("utf-8", "replace")
    return message or type(error).__name__


@contextlib.contextmanager
def _gateway_errors(table, what: str):
    """The gateway's errors as RowKeyError: its IOError's first line names what the server refused."""
    thrift = _thrift()
    try:
        yield
    except (thrift.IOError, thrift.IllegalArgument) as error:
        # The server's stack trace; its first line names what was wrong.
        first = _message(error).splitlines()[0]
        raise RowKeyError("%s of table %s refused by the gateway: %s" % (what, _table_name(table), first)) from error
    except Exception as error:
        if type(error).__name__ != "TApplicationException":
            raise
        raise RowKeyError("%s of table %s failed inside the Thrift gateway (%s): is RowKeyWhere registered there "
                          "(hbase.thrift.filters = RowKeyWhere:org.rowkey.hbase.RowKeyWhere) and our jar on its "
                          "class path? (cargo make thrift start does both)"
                          % (what, _table_name(table), _message(error))) from error


def _scan_with_attributes(table, tscan, attributes: Dict[bytes, bytes], rows: Optional[int] = None) -> Iterator[Any]:
    """The TRowResults of a scan with Scan attributes, which happybase's Table.scan does not pass."""
    client = table.connection.client
    scanner = client.scannerOpenWithScan(table.name, tscan, attributes)
    try:
        seen = 0
        while rows is None or seen < rows:
            batch = client.scannerGetList(scanner, 1 if rows is not None else 16)
            if not batch:
                return
            for result in batch:
                seen += 1
                yield result
    finally:
        client.scannerClose(scanner)


def _cell(result, qualifier: bytes) -> Optional[bytes]:
    for column, cell in result.columns.items():
        if column.split(b":", 1)[-1] == qualifier:
            return cell.value
    return None


def schema_of(table) -> Schema:
    """The schema of a table made by ``RowKeyTable.create``, from its catalog (which
    ``RowKeyScanObserver`` returns for one region's scan with the ``rowkey.catalog`` attribute)."""
    thrift = _thrift()
    with _gateway_errors(table, "reading the catalog"):
        results = list(_scan_with_attributes(table, thrift.TScan(caching=1), {_CATALOG_ATTRIBUTE: b"1"}, rows=1))
    catalog = _cell(results[0], _CATALOG_QUALIFIER) if results else None
    if catalog is None:
        raise RowKeyError("table %s has no hbase-rowkey catalog (it was not made by RowKeyTable.create, or its "
                          "RowKeyScanObserver is not loaded): give its schema, e.g. schema='md5url md5(8), code int32'"
                          % _table_name(table))
    return Schema.from_catalog(catalog)


def _schema(table, schema: Union[Schema, str, None]) -> Schema:
    if schema is None:
        return schema_of(table)
    return Schema(schema) if isinstance(schema, str) else schema


def _check_width(table, schema: Schema) -> None:
    """After a scan with a schema of the caller's returned nothing: a table whose first row key is
    not as wide as the schema's keys holds no row of it, which is an error, not an empty answer."""
    thrift = _thrift()
    with _gateway_errors(table, "reading the first row key"):
        first = list(_scan_with_attributes(table, thrift.TScan(caching=1, filterString=b"FirstKeyOnlyFilter() AND KeyOnlyFilter()"),
                                           {}, rows=1))
    if first and len(first[0].row) != schema.key_length:
        raise RowKeyError("table %s: its first row key has %d bytes, the schema %r makes keys of %d: the schema is not "
                          "this table's" % (_table_name(table), len(first[0].row), schema.text, schema.key_length))


def scan(table, where: str, schema: Union[Schema, str, None] = None, *, columns: Optional[Sequence[bytes]] = None,
         reverse: bool = False, limit: Optional[int] = None, batch_size: int = 1000) -> Iterator[Row]:
    """The rows of ``where`` in a happybase table, their keys decoded, through the gateway's
    ``RowKeyWhere`` filter (planned inside each region: key ranges, skip scan).

    ``schema``: None for a table made by ``RowKeyTable.create`` (its catalog's; the RegionServer
    refuses a schema that differs from it), else the table's schema (a ``Schema`` or its text).
    The where clause is checked here, before any call: a bad one raises ``RowKeyError`` at once;
    the gateway's refusals raise it as the rows are read.
    """
    _thrift()
    own = schema is not None
    schema = _schema(table, schema)
    schema.where(where)
    return _rows(table, schema, own, filter_string(where, schema if own else None),
                 dict(columns=columns, reverse=reverse, limit=limit, batch_size=batch_size))


def _rows(table, schema: Schema, own: bool, text: str, options: Dict[str, Any]) -> Iterator[Row]:
    found = False
    with _gateway_errors(table, "the scan"):
        for key, cells in table.scan(filter=text, **options):
            found = True
            yield Row(key, schema.decode(key), cells)
    if not found and own:
        _check_width(table, schema)


def explain(table, where: str, schema: Union[Schema, str, None] = None) -> str:
    """What ``scan`` reads: the key ranges and per-row conditions each region plans for the filter,
    which are those ``RowKeyQuery.toScan()`` plans, and the filter string sent."""
    own = schema is not None
    schema = _schema(table, schema)
    return "%s\nthrough the Thrift gateway as %s on table %s" % (
        schema.explain(where), filter_string(where, schema if own else None), _table_name(table))


def aggregate(table, where: str = "TRUE", group_by: Sequence[str] = (), aggregates: Sequence[str] = ("count",),
              schema: Union[Schema, str, None] = None) -> List[Dict[str, Any]]:
    """``count``, ``sum(f)``, ``min(f)``, ``max(f)``, ``avg(f)`` of key fields, grouped by key fields
    (``"ts by hour"`` truncates a timestamp), folded inside each region by ``RowKeyScanObserver``
    (the ``rowkey.aggregate`` scan attribute through the gateway), the regions' partial states merged
    here natively. Needs a table made by ``RowKeyTable.create``; reads the data table, never an
    index. One dict per group, in group order."""
    thrift = _thrift()
    own = schema is not None
    schema = _schema(table, schema)
    schema.where(where)
    fold = Aggregate(schema, list(group_by), list(aggregates))
    tscan = thrift.TScan(caching=1, filterString=filter_string(where, schema if own else None).encode("utf-8"))
    with _gateway_errors(table, "the aggregate"):
        for result in _scan_with_attributes(table, tscan, {_AGGREGATE_ATTRIBUTE: fold.request}):
            partial = _cell(result, _PARTIAL_QUALIFIER)
            if partial is None:
                # A plain row: no observer folded this region. Never count it as an answer.
                raise RowKeyError("table %s returned a row, not a partial aggregate: its RowKeyScanObserver is not loaded "
                                  "(aggregates need a table made by RowKeyTable.create)" % _table_name(table))
            fold.merge(partial)
    return [dict(zip(fold.columns, row)) for row in fold.finish()]
