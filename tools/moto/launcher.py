"""Runs moto's server on 127.0.0.1 on a free port, prints the port, and stops when stdin closes
(the Node process that started it ended, however it ended)."""
import sys

from moto.server import ThreadedMotoServer

server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
server.start()
print(server.get_host_and_port()[1], flush=True)
sys.stdin.read()
server.stop()
