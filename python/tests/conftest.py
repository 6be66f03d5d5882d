"""The suite: tests/test_native.py needs nothing but the wheel; tests/test_gateway.py needs a real
Thrift1 gateway and the answers Java's client gave, in the JSON file that PythonClientsIT writes
(ROWKEY_GATEWAY_EXPECTED). `cargo make python-test` runs the first; PythonClientsIT runs both."""

import json
import os

import pytest


def pytest_configure(config):
    config.addinivalue_line("markers", "gateway: needs a Thrift1 gateway and PythonClientsIT's expectations")


@pytest.fixture(scope="session")
def expected():
    path = os.environ.get("ROWKEY_GATEWAY_EXPECTED")
    if not path:
        pytest.fail("ROWKEY_GATEWAY_EXPECTED is not set: the gateway tests run inside PythonClientsIT "
                    "(mvn -f java/pom.xml verify -Dit.test=PythonClientsIT); `cargo make python-test` runs the others")
    with open(path, encoding="utf-8") as f:
        return json.load(f)


@pytest.fixture(scope="session")
def connection(expected):
    import happybase
    c = happybase.Connection(expected["host"], expected["port"], timeout=300000)
    yield c
    c.close()
