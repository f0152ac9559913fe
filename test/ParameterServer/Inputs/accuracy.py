"""Compares the final held-out accuracy of two training runs' metrics
(JSON Lines with eval_accuracy): the second must be within MARGIN
(absolute) of the first.

    accuracy.py REFERENCE.jsonl OTHER.jsonl [--margin 0.01]
"""
import argparse
import json


def final_accuracy(path):
    accuracy = None
    for line in open(path):
        record = json.loads(line)
        if "eval_accuracy" in record:
            accuracy = record["eval_accuracy"]
    return accuracy


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("reference")
    parser.add_argument("other")
    parser.add_argument("--margin", type=float, default=0.01)
    args = parser.parse_args()
    ref, other = final_accuracy(args.reference), final_accuracy(args.other)
    ok = ref is not None and other is not None and other >= ref - args.margin
    print(f"accuracy {other} against {ref}: " + ("OK" if ok else "MISMATCH"))


if __name__ == "__main__":
    main()
