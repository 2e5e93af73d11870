"""The Sparse Abstract Machine: streams, primitives, graphs and a cycle-counting simulator."""
