#!/usr/bin/env python3
"""half_legs.py IN.glb OUT.glb: the mannequin with its legs at half length and the hips
lowered to keep the feet on the floor (a body with short legs and a long torso, for the
contact tests). Only node translations change: each lower leg and foot joint's offset is
halved, and the hips come down by what the legs lost. The skin follows its joints."""
import json, struct, sys

src, dst = sys.argv[1:3]
data = open(src, "rb").read()
magic, version, length = struct.unpack_from("<III", data, 0)
json_len, json_type = struct.unpack_from("<II", data, 12)
doc = json.loads(data[20:20 + json_len])
rest = data[20 + json_len:]
bones = doc["extensions"]["EXT_skeleton_humanoid"]["humanoidSkeletons"][0]["humanoidBones"]
def node(bone):
    return doc["nodes"][bones[bone]]
lost = 0.0
for side in ("left", "right"):
    for bone in ("LowerLeg", "Foot"):
        n = node(side + bone)
        t = n.get("translation", [0, 0, 0])
        if side == "left":
            lost += -t[1] / 2
        n["translation"] = [t[0] / 2, t[1] / 2, t[2] / 2]
hips = node("hips")
t = hips.get("translation", [0, 0, 0])
hips["translation"] = [t[0], t[1] - lost, t[2]]
# Clips are dropped: their hips paths were made for the full legs.
doc.pop("animations", None)
text = json.dumps(doc).encode()
text += b" " * (-len(text) % 4)
body = struct.pack("<II", len(text), 0x4E4F534A) + text + rest
open(dst, "wb").write(struct.pack("<III", magic, version, 12 + len(body)) + body)
