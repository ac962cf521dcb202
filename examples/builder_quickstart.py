"""Build a small MLP with the tvm.relay-shaped builder, print its IR and run it.

.venv/bin/python examples/builder_quickstart.py
"""

from __future__ import annotations

import numpy as np

from xrelay import relay


def main() -> None:
    rng = np.random.default_rng(0)
    batch, features, hidden, classes = 4, 16, 32, 10

    # Parameters are variables with a shape (and dtype, float32 by default);
    # weights are constants (numpy arrays, kept as bytes in the IR).
    x = relay.var("x", shape=(batch, features))
    w1 = relay.const(rng.standard_normal((hidden, features)).astype("float32"))
    b1 = relay.const(np.zeros(hidden, "float32"))
    w2 = relay.const(rng.standard_normal((classes, hidden)).astype("float32"))

    # The same calls as in a TVM script; nothing is emitted yet.
    h = relay.nn.relu(relay.nn.bias_add(relay.nn.dense(x, w1), b1))
    logits = relay.nn.dense(h, w2)
    probs = relay.nn.softmax(logits)
    func = relay.Function([x], relay.Tuple([probs, relay.argmax(logits, axis=1)]))

    # Putting the function in a module emits a func.func of typed relay ops.
    mod = relay.IRModule.from_expr(func)
    mod.verify()
    print(mod)  # large constants are elided; mod.astext() prints everything

    run = relay.create_executor(mod=mod).evaluate()
    p, labels = run(rng.standard_normal((batch, features)).astype("float32"))
    print("row sums:", p.numpy().sum(axis=1))
    print("labels:  ", labels.numpy())


if __name__ == "__main__":
    main()
