"""Parquet files that read back with their types: the metadata pandas takes its column types from."""

from __future__ import annotations

import json

import pyarrow as pa

# What pandas makes of each Arrow type: whole numbers and booleans as its nullable types
# (a move count stays 102, not 102.0, in a column where unsolved rows have none).
_PANDAS_TYPES = {
    pa.int8(): ("int8", "Int8"),
    pa.int16(): ("int16", "Int16"),
    pa.int32(): ("int32", "Int32"),
    pa.int64(): ("int64", "Int64"),
    pa.bool_(): ("bool", "boolean"),
    pa.float64(): ("float64", "float64"),
    pa.string(): ("unicode", "object"),
}


def pandas_readable(table: pa.Table) -> pa.Table:
    """`table` with the metadata pandas reads a Parquet file's column types from (as
    pandas itself writes it), so that a plain `pandas.read_parquet` gives nullable
    integers (Int8, Int32, Int64) and booleans (boolean), not floats and objects, for
    columns with nulls. Arrow readers (pyarrow, DuckDB, polars) read the schema's own
    types and ignore it. Every Parquet file fcanalyze writes goes through this."""
    columns = []
    for f in table.schema:
        if pa.types.is_timestamp(f.type):
            pandas_type, numpy_type = "datetimetz" if f.type.tz else "datetime", f"datetime64[{f.type.unit}]"
            extra = {"timezone": f.type.tz} if f.type.tz else None
        else:
            pandas_type, numpy_type = _PANDAS_TYPES.get(f.type, ("object", "object"))
            extra = None
        columns.append(
            {
                "name": f.name,
                "field_name": f.name,
                "pandas_type": pandas_type,
                "numpy_type": numpy_type,
                "metadata": extra,
            }
        )
    meta = {
        "index_columns": [],
        "column_indexes": [],
        "columns": columns,
        "attributes": {},
        "creator": {"library": "pyarrow", "version": pa.__version__},
        "pandas_version": "2.0.0",
    }
    return table.replace_schema_metadata({**(table.schema.metadata or {}), b"pandas": json.dumps(meta).encode()})
