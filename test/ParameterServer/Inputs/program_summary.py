"""Prints a ProgramDesc JSON program (distc --emit=program-json) as the
lists Paddle's test_dist_transpiler.py asserts: per block its index, parent
and op types, then each variable the program declares with its shape
(and whether it is SELECTED_ROWS).

    program_summary.py [--vars] < program.json
"""
import json
import sys


def main():
    program = json.load(sys.stdin)
    for block in program["blocks"]:
        ops = ", ".join(op["type"] for op in block.get("ops", []))
        print("block %d (parent %d): %s" % (block["idx"], block["parent_idx"], ops))
    if "--vars" in sys.argv:
        for block in program["blocks"]:
            for var in block.get("vars", []):
                sparse = var["type"]["type"] == "SELECTED_ROWS"
                tensor = (var["type"].get("selected_rows", {}) if sparse else
                          var["type"].get("lod_tensor", {}).get("tensor", {}))
                print("var %s %s%s%s" % (var["name"], tensor.get("dims"),
                                         " persistable" if var.get("persistable") else "",
                                         " selected_rows" if sparse else ""))
    if "--attrs" in sys.argv:
        for block in program["blocks"]:
            for op in block.get("ops", []):
                if op["type"] not in ("send", "recv", "split_byref", "listen_and_serv",
                                      "send_barrier", "fetch_barrier", "split_selected_rows"):
                    continue
                ins = {i["parameter"]: i.get("arguments", []) for i in op.get("inputs", [])}
                outs = {o["parameter"]: o.get("arguments", []) for o in op.get("outputs", [])}
                attrs = {}
                for a in op.get("attrs", []):
                    if a["name"] in ("epmap", "endpoints", "sections", "grad_to_block_id",
                                     "Fanin", "sync_mode", "optimize_blocks", "endpoint",
                                     "pserver_id", "trainer_id", "distributed_mode",
                                     "half_async", "send_varnames", "recv_varnames",
                                     "height_sections"):
                        value = [v for k, v in a.items() if k not in ("name", "type")]
                        attrs[a["name"]] = value[0] if value else []
                print("%s X=%s Out=%s %s" % (op["type"], ins.get("X", []), outs.get("Out", []),
                                             json.dumps(attrs, sort_keys=True)))


if __name__ == "__main__":
    main()
