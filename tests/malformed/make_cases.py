#!/usr/bin/env python3
"""Writes the golden suite of malformed inputs: `<format>/<name>.<ext>` beside
`<name>.expected.json`, in the style of the Khronos glTF-Validator's test files.

Each case is built from a small valid seed by one deliberate fault, and its expectation is
written here from that fault, by hand: the exit code, the registered code, the place (a byte
offset, a JSON pointer, or line:column; "N:" means line N, any column) and words the message
must hold. Legal-but-unusual inputs (CRLF, a BOM, gzip) name the plain file they must read
the same as ("same_as"). Rerun after editing: `python3 tests/malformed/make_cases.py`.
"""

import gzip
import base64
import json
import os
import shutil
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
COUNT = {}


def case(fmt, name, ext, data, exit=1, code=None, place=None, words=None, same_as=None, note="", convert_to=None):
    folder = os.path.join(HERE, fmt)
    os.makedirs(folder, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(os.path.join(folder, f"{name}.{ext}"), "wb") as f:
        f.write(data)
    expected = {"exit": exit, "why": note}
    if code is not None:
        expected["code"] = code
    if place is not None:
        expected["place"] = place
    if words is not None:
        expected["words"] = words
    if same_as is not None:
        expected["same_as"] = same_as
    if convert_to is not None:
        expected["convert_to"] = convert_to
    with open(os.path.join(folder, f"{name}.expected.json"), "w") as f:
        json.dump(expected, f, indent=2, ensure_ascii=False)
        f.write("\n")
    COUNT[fmt] = COUNT.get(fmt, 0) + 1


def line_col(text, needle, nth=0):
    """1-based line and column (characters) of the nth occurrence of needle."""
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    before = text[:at]
    line = before.count("\n") + 1
    col = len(before) - (before.rfind("\n") + 1) + 1
    return f"{line}:{col}"


# ------------------------------------------------------------------------------------------
# glTF JSON and GLB containers

def gltf_seed():
    """Two nodes, one buffer with 3 floats, one accessor: valid glTF 2.0."""
    return {
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "root", "children": [1]}, {"name": "child", "translation": [0, 1, 0]}],
        "buffers": [{"byteLength": 12}],
        "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 12}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 1, "type": "VEC3"}],
    }


BIN = struct.pack("<3f", 0.0, 1.0, 0.0)


def pad(data, fill):
    return data + fill * ((4 - len(data) % 4) % 4)


def glb(doc_bytes, bin_bytes=BIN, chunks=None, version=2, magic=b"glTF", length=None):
    if chunks is None:
        json_chunk = pad(doc_bytes, b" ")
        chunks = [(b"JSON", json_chunk)]
        if bin_bytes is not None:
            chunks.append((b"BIN\0", pad(bin_bytes, b"\0")))
    body = b"".join(struct.pack("<I", len(d)) + t + d for t, d in chunks)
    total = 12 + len(body) if length is None else length
    return magic + struct.pack("<II", version, total) + body


def dump(doc):
    return json.dumps(doc, separators=(",", ":")).encode()


def gltf_cases():
    f = "gltf"
    with_uri = gltf_seed()
    with_uri["buffers"][0]["uri"] = "data:application/octet-stream;base64,AAAAAAAAgD8AAAAA"
    plain = json.dumps(with_uri, indent=1)
    case(f, "plain", "gltf", plain, exit=0, note="the valid seed the other cases break")
    case(f, "crlf", "gltf", plain.replace("\n", "\r\n"), exit=0, same_as="plain.gltf", note="CRLF line ends are JSON whitespace")
    case(f, "bom", "gltf", b"\xef\xbb\xbf" + plain.encode(), exit=0, same_as="plain.gltf", note="a UTF-8 byte order mark before the JSON")
    case(f, "empty", "gltf", b"", code="GLTF_INVALID", place="byte 0", words="empty")
    case(f, "whitespace_only", "gltf", b"  \n\t\n", code="GLTF_INVALID", words="")
    case(f, "open_brace", "gltf", b"{", code="GLTF_INVALID", place="1:", words="JSON")
    case(f, "not_json", "gltf", b"{ this is not json }", code="GLTF_INVALID", place="1:", words="JSON")
    case(f, "truncated", "gltf", plain[: len(plain) // 2], code="GLTF_INVALID", words="JSON")
    case(f, "array_root", "gltf", b"[1, 2, 3]", code="GLTF_INVALID", words="")
    vt = json.loads(json.dumps(with_uri))
    vt["extensionsUsed"] = vt.get("extensionsUsed", []) + ["KHR_virtual_transform"]
    vt.setdefault("extensions", {})["KHR_virtual_transform"] = {"virtualTransforms": [{"name": "hat", "parent": 0, "translation": [1e39, 0, 0]}]}
    case(f, "virtual_transform_infinite", "gltf", json.dumps(vt), code="GLTF_INVALID",
         place="/extensions/KHR_virtual_transform/virtualTransforms/0/translation", words="finite",
         note="a socket translation beyond f32 (infinite once read): validate passed it and inspect refused it; validate now reads sockets as inspect does")
    d = dict(with_uri); del d["asset"]
    case(f, "missing_asset", "gltf", dump(d), code="GLTF_INVALID", words="asset")
    d = json.loads(plain); d["asset"]["version"] = "1.0"
    case(f, "version_1", "gltf", dump(d), code="GLTF_VERSION", place="/asset/version", words="1.0")
    d = json.loads(plain); d["nodes"] = "x"
    case(f, "nodes_not_array", "gltf", dump(d), code="GLTF_INVALID", place="/nodes", words="")
    d = json.loads(plain); d["nodes"][0]["children"] = [7]
    case(f, "child_out_of_range", "gltf", dump(d), code="GLTF_INDEX_OUT_OF_RANGE", place="/nodes/0/children/0", words="7")
    d = json.loads(plain); d["nodes"][1]["children"] = [0]
    case(f, "node_cycle", "gltf", dump(d), code="GLTF_NODE_CYCLE", words="cycle")
    d = json.loads(plain); d["nodes"][0]["children"] = [0]
    case(f, "node_own_child", "gltf", dump(d), code="GLTF_NODE_CYCLE", words="")
    d = json.loads(plain); d["nodes"].append({"name": "x", "children": [1]})
    case(f, "two_parents", "gltf", dump(d), code="GLTF_NODE_TWO_PARENTS", words="")
    d = json.loads(plain); d["nodes"][0]["children"] = [-1]
    case(f, "negative_index", "gltf", dump(d), code="GLTF_INVALID", place="/nodes/0/children/0", words="")
    d = json.loads(plain); d["nodes"][0]["children"] = [1.5]
    case(f, "fractional_index", "gltf", dump(d), code="GLTF_INVALID", place="/nodes/0/children/0", words="")
    d = json.loads(plain); d["nodes"][0]["children"] = [4294967296]
    case(f, "huge_index", "gltf", dump(d), code="GLTF_INVALID", place="/nodes/0/children/0", words="")
    d = json.loads(plain); d["scenes"][0]["nodes"] = [9]
    case(f, "scene_node_out_of_range", "gltf", dump(d), code="GLTF_INDEX_OUT_OF_RANGE", place="/scenes/0/nodes/0", words="9")
    d = json.loads(plain)
    text = dump(d).decode().replace('"translation":[0,1,0]', '"translation":[0,1e999,0]')
    case(f, "translation_infinite", "gltf", text, code="GLTF_INVALID", place="1:", words="out of range", note="1e999 is no finite number: refused where it is parsed")
    d = json.loads(plain); d["nodes"][1]["translation"] = [0, 1]
    case(f, "translation_two_values", "gltf", dump(d), code="GLTF_INVALID", place="/nodes/1/translation", words="")
    d = json.loads(plain); d["nodes"][1]["rotation"] = [0, 0, 0, 1, 0]
    case(f, "rotation_five_values", "gltf", dump(d), code="GLTF_INVALID", place="1:", words="/nodes/1/rotation")
    d = json.loads(plain); d["nodes"][1]["matrix"] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
    case(f, "matrix_and_trs", "gltf", dump(d), code="GLTF_NODE_MATRIX_AND_TRS", place="/nodes/1/matrix", words="")
    d = json.loads(plain); d["buffers"][0]["uri"] = "../outside.bin"
    case(f, "uri_escapes_folder", "gltf", dump(d), code="GLTF_INVALID", place="/buffers/0/uri", words="folder")
    d = json.loads(plain); d["buffers"][0]["uri"] = "/etc/passwd"
    case(f, "uri_absolute", "gltf", dump(d), code="GLTF_INVALID", place="/buffers/0/uri", words="")
    d = json.loads(plain); d["buffers"][0]["uri"] = "missing.bin"
    case(f, "uri_missing_file", "gltf", dump(d), code="GLTF_INVALID", place="/buffers/0/uri", words="missing.bin")
    d = json.loads(plain); d["buffers"][0]["uri"] = "data:application/octet-stream;base64,@@@@"
    case(f, "data_uri_bad_base64", "gltf", dump(d), code="GLTF_INVALID", place="/buffers/0/uri", words="base64")
    d = json.loads(plain); d["buffers"][0]["byteLength"] = 1 << 40
    case(f, "buffer_longer_than_data", "gltf", dump(d), code="GLTF_BUFFER_TOO_SHORT", place="/buffers/0/byteLength", words="")
    d = json.loads(plain); d["bufferViews"][0]["byteLength"] = 400
    case(f, "view_out_of_buffer", "gltf", dump(d), code="GLTF_VIEW_OUT_OF_BUFFER", place="/bufferViews/0", words="")
    d = json.loads(plain); d["accessors"][0]["count"] = 4000000000
    case(f, "accessor_huge_count", "gltf", dump(d), code="GLTF_ACCESSOR_OUT_OF_VIEW", place="/accessors/0", words="")
    d = json.loads(plain); d["accessors"][0]["componentType"] = 9999
    case(f, "component_type_unknown", "gltf", dump(d), code="GLTF_COMPONENT_TYPE", place="/accessors/0/componentType", words="")
    d = json.loads(plain); d["accessors"][0]["type"] = "VEC7"
    case(f, "accessor_type_unknown", "gltf", dump(d), code="GLTF_ACCESSOR_TYPE", place="/accessors/0/type", words="")
    deep = "[" * 5000 + "]" * 5000
    text = dump(json.loads(plain)).decode().replace('"name":"root"', f'"name":"root","extras":{deep}')
    case(f, "json_nested_5000", "gltf", text, code="GLTF_INVALID", words="recursion")
    case(f, "utf16", "gltf", b"\xff\xfe" + plain.encode("utf-16-le"), code="GLTF_INVALID", place="byte 0", words="")
    case(f, "nul_bytes", "gltf", plain.encode().replace(b'"root"', b'"ro\0ot"'), code="GLTF_INVALID", words="")
    d = json.loads(plain); d["nodes"][0]["name"] = "n" * 1_000_000
    case(f, "megabyte_name", "gltf", dump(d), exit=0, note="a legal 1 MB node name reads in well under a second")
    d = json.loads(plain); d["skins"] = [{"joints": [0, 5]}]
    case(f, "skin_joint_out_of_range", "gltf", dump(d), code="GLTF_INDEX_OUT_OF_RANGE", place="/skins/0/joints/1", words="5")

    f = "glb"
    doc = dump(gltf_seed())
    case(f, "plain", "glb", glb(doc), exit=0, note="the valid seed")
    case(f, "zero_length", "glb", b"", code="GLTF_INVALID", place="byte 0", words="empty")
    case(f, "header_11_bytes", "glb", glb(doc)[:11], code="GLTF_INVALID", words="header")
    case(f, "bad_magic", "glb", glb(doc, magic=b"glTX"), code="GLTF_INVALID", place="byte 0", words="")
    case(f, "version_1", "glb", glb(doc, version=1), code="GLTF_INVALID", place="byte 4", words="version")
    case(f, "version_3", "glb", glb(doc, version=3), code="GLTF_INVALID", place="byte 4", words="version")
    whole = glb(doc)
    case(f, "length_past_end", "glb", glb(doc, length=len(whole) + 100), code="GLTF_INVALID", place="byte 8", words="")
    case(f, "length_under_header", "glb", glb(doc, length=8), code="GLTF_INVALID", place="byte 8", words="")
    case(f, "truncated_chunk_header", "glb", whole[:4] + struct.pack("<II", 2, 16) + whole[12:16], code="GLTF_INVALID", place="byte 8", words="at least 20")
    truncated = whole[:40]
    case(f, "truncated_json_chunk", "glb", truncated[:8] + struct.pack("<I", 40) + truncated[12:], code="GLTF_INVALID", place="byte 12", words="")
    jc = pad(doc, b" ")
    past = b"glTF" + struct.pack("<II", 2, 12 + 8 + 16) + struct.pack("<I", 4096) + b"JSON" + jc[:16]
    case(f, "chunk_past_end", "glb", past, code="GLTF_INVALID", place="byte 12", words="")
    case(f, "bin_first", "glb", glb(doc, chunks=[(b"BIN\0", BIN), (b"JSON", jc)]), code="GLTF_INVALID", place="byte 16", words="JSON")
    case(f, "json_twice", "glb", glb(doc, chunks=[(b"JSON", jc), (b"JSON", jc)]), code="GLTF_INVALID", words="JSON")
    case(f, "bin_twice", "glb", glb(doc, chunks=[(b"JSON", jc), (b"BIN\0", BIN), (b"BIN\0", BIN)]), code="GLTF_INVALID", words="BIN")
    case(f, "no_chunks", "glb", b"glTF" + struct.pack("<II", 2, 12), code="GLTF_INVALID", words="")
    case(f, "json_chunk_not_json", "glb", glb(b"not json at all!"), code="GLTF_INVALID", words="JSON")
    case(f, "json_chunk_utf16", "glb", glb(b"\xff\xfe" + doc.decode().encode("utf-16-le")), code="GLTF_INVALID", words="")
    case(f, "json_chunk_length_not_4", "glb", b"glTF" + struct.pack("<II", 2, 12 + 8 + len(doc)) + struct.pack("<I", len(doc)) + b"JSON" + doc if len(doc) % 4 else glb(doc, chunks=[(b"JSON", doc + b"   ")]) , exit=None, note="a JSON chunk length not a multiple of 4: refused or read, never a crash")
    big = dump(dict(gltf_seed(), buffers=[{"byteLength": 1 << 40}]))
    case(f, "bin_shorter_than_buffer", "glb", glb(big), code="GLTF_BUFFER_TOO_SHORT", place="/buffers/0/byteLength", words="")
    d = gltf_seed(); d["nodes"][0]["children"] = [0]
    case(f, "node_cycle", "glb", glb(dump(d)), code="GLTF_NODE_CYCLE", words="")
    case(f, "declared_4g_length", "glb", glb(doc, length=0xFFFFFFFF), code="GLTF_INVALID", place="byte 8", words="")
    anim = gltf_seed()
    anim["buffers"] = [{"byteLength": 32}]
    anim["bufferViews"] = [{"buffer": 0, "byteLength": 8}, {"buffer": 0, "byteOffset": 8, "byteLength": 24}]
    anim["accessors"] = [{"bufferView": 0, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0], "max": [1]},
                         {"bufferView": 1, "componentType": 5126, "count": 2, "type": "VEC3"}]
    anim["animations"] = [{"samplers": [{"input": 0, "output": 1}], "channels": [{"sampler": 0, "target": {"node": 1, "path": "translation"}}]}]
    nan = struct.pack("<2f", 0, 1) + struct.pack("<3f", 0, 1, 0) + struct.pack("<I", 0x7FC00000) + struct.pack("<2f", 1, 0)
    case(f, "fuzz_nan_in_animation", "glb", glb(dump(anim), nan), code="GLTF_ACCESSOR_NOT_FINITE", place="/accessors/1", words="NaN",
         note="found by the write_back fuzz target: a NaN key was read and written as `NaN` into X3D, which no X3D reader parses; glTF forbids non-finite accessor values")
    case(f, "trailing_garbage", "glb", glb(doc) + b"\0" * 8, exit=0, note="bytes after the declared length are ignored (a warning)")


# ------------------------------------------------------------------------------------------
# VRM 1.0 / 0.x / VRMA

BONES = ["hips", "spine", "chest", "neck", "head", "leftUpperArm", "leftLowerArm", "leftHand", "rightUpperArm",
         "rightLowerArm", "rightHand", "leftUpperLeg", "leftLowerLeg", "leftFoot",
         "rightUpperLeg", "rightLowerLeg", "rightFoot"]
PARENT = {"spine": "hips", "chest": "spine", "neck": "chest", "head": "neck", "leftUpperArm": "chest", "leftLowerArm": "leftUpperArm",
          "leftHand": "leftLowerArm", "rightUpperArm": "chest", "rightLowerArm": "rightUpperArm",
          "rightHand": "rightLowerArm", "leftUpperLeg": "hips", "leftLowerLeg": "leftUpperLeg",
          "leftFoot": "leftLowerLeg", "rightUpperLeg": "hips", "rightLowerLeg": "rightUpperLeg",
          "rightFoot": "rightLowerLeg"}
POS = {"hips": [0, 1, 0], "spine": [0, 0.1, 0], "chest": [0, 0.15, 0], "neck": [0, 0.2, 0], "head": [0, 0.1, 0], "leftUpperArm": [0.2, 0.1, 0],
       "leftLowerArm": [0.3, 0, 0], "leftHand": [0.25, 0, 0], "rightUpperArm": [-0.2, 0.1, 0],
       "rightLowerArm": [-0.3, 0, 0], "rightHand": [-0.25, 0, 0], "leftUpperLeg": [0.1, -0.05, 0],
       "leftLowerLeg": [0, -0.45, 0], "leftFoot": [0, -0.45, 0], "rightUpperLeg": [-0.1, -0.05, 0],
       "rightLowerLeg": [0, -0.45, 0], "rightFoot": [0, -0.45, 0]}


def humanoid_nodes():
    nodes = []
    for b in BONES:
        nodes.append({"name": b, "translation": POS[b]})
    for b, p in PARENT.items():
        nodes[BONES.index(p)].setdefault("children", []).append(BONES.index(b))
    return nodes


def vrm1_doc():
    return {
        "asset": {"version": "2.0"},
        "extensionsUsed": ["VRMC_vrm"],
        "scene": 0, "scenes": [{"nodes": [0]}],
        "nodes": humanoid_nodes(),
        "extensions": {"VRMC_vrm": {
            "specVersion": "1.0",
            "meta": {"name": "case", "authors": ["humanoid"], "licenseUrl": "https://vrm.dev/licenses/1.0/"},
            "humanoid": {"humanBones": {b: {"node": i} for i, b in enumerate(BONES)}},
        }},
    }


def vrm0_doc():
    return {
        "asset": {"version": "2.0"},
        "extensionsUsed": ["VRM"],
        "scene": 0, "scenes": [{"nodes": [0]}],
        "nodes": humanoid_nodes(),
        "extensions": {"VRM": {
            "specVersion": "0.0",
            "meta": {"title": "case"},
            "humanoid": {"humanBones": [{"bone": b, "node": i} for i, b in enumerate(BONES)]},
        }},
    }


def vrma_doc():
    d = {
        "asset": {"version": "2.0"},
        "extensionsUsed": ["VRMC_vrm_animation"],
        "scene": 0, "scenes": [{"nodes": [0]}],
        "nodes": humanoid_nodes(),
        "buffers": [{"byteLength": 40}],
        "bufferViews": [{"buffer": 0, "byteLength": 8}, {"buffer": 0, "byteOffset": 8, "byteLength": 32}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0], "max": [1]},
            {"bufferView": 1, "componentType": 5126, "count": 2, "type": "VEC4"},
        ],
        "animations": [{"name": "a", "samplers": [{"input": 0, "output": 1}], "channels": [{"sampler": 0, "target": {"node": 1, "path": "rotation"}}]}],
        "extensions": {"VRMC_vrm_animation": {"specVersion": "1.0", "humanoid": {"humanBones": {b: {"node": i} for i, b in enumerate(BONES)}}}},
    }
    return d


VRMA_BIN = struct.pack("<2f", 0.0, 1.0) + struct.pack("<8f", 0, 0, 0, 1, 0, 0.7071068, 0, 0.7071068)


def vrm_cases():
    f = "vrm"
    case(f, "plain_1", "vrm", glb(dump(vrm1_doc()), None), exit=0, note="the valid VRM 1.0 seed")
    case(f, "plain_0", "vrm", glb(dump(vrm0_doc()), None), exit=0, note="the valid VRM 0.x seed")
    d = vrm1_doc(); d["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"]["hips"]["node"] = 99
    case(f, "bone_node_out_of_range", "vrm", glb(dump(d), None), code="GLTF_INVALID", place="/extensions/VRMC_vrm/humanoid/humanBones/hips/node", words="99")
    d = vrm1_doc(); del d["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"]["hips"]
    case(f, "missing_hips", "vrm", glb(dump(d), None), code="VRM_MISSING_BONES", words="hips")
    d = vrm1_doc(); d["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"]["tail"] = {"node": 0}
    case(f, "unknown_bone", "vrm", glb(dump(d), None), code="VRM_UNKNOWN_BONE", words="tail")
    d = vrm1_doc(); d["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"]["spine"]["node"] = 0
    case(f, "bone_listed_twice", "vrm", glb(dump(d), None), code="BONE_MAPPED_TWICE", place="/extensions/VRMC_vrm/humanoid", words="hips, spine")
    d = vrm1_doc(); d["extensions"]["VRMC_vrm"]["humanoid"] = "nope"
    case(f, "humanoid_wrong_type", "vrm", glb(dump(d), None), code="GLTF_INVALID", place="/extensions/VRMC_vrm", words="humanBones")
    d = vrm0_doc(); d["extensions"]["VRM"]["humanoid"]["humanBones"][0]["node"] = -1
    case(f, "vrm0_negative_node", "vrm", glb(dump(d), None), code="GLTF_INVALID", words="")
    d = vrm0_doc(); d["extensions"]["VRM"]["humanoid"]["humanBones"][0]["node"] = 500
    case(f, "vrm0_node_out_of_range", "vrm", glb(dump(d), None), code="GLTF_INVALID", place="/extensions/VRM/humanoid/humanBones/0/node", words="500")
    d = vrm0_doc(); d["extensions"]["VRMC_vrm"] = vrm1_doc()["extensions"]["VRMC_vrm"]
    d["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"]["hips"]["node"] = 1
    d["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"]["spine"]["node"] = 0
    case(f, "versions_disagree", "vrm", glb(dump(d), None), code="VRM_VERSIONS_DISAGREE", words="")
    case(f, "truncated", "vrm", glb(dump(vrm1_doc()), None)[:100], code="GLTF_INVALID", words="")

    f = "vrma"
    case(f, "plain", "vrma", glb(dump(vrma_doc()), VRMA_BIN), exit=0, note="the valid VRMA seed")
    d = vrma_doc(); d["animations"][0]["channels"][0]["target"]["node"] = 77
    case(f, "channel_node_out_of_range", "vrma", glb(dump(d), VRMA_BIN), code="GLTF_INDEX_OUT_OF_RANGE", place="/animations/0/channels/0/target/node", words="77")
    d = vrma_doc(); d["animations"][0]["channels"][0]["sampler"] = 3
    case(f, "channel_sampler_out_of_range", "vrma", glb(dump(d), VRMA_BIN), code="GLTF_INDEX_OUT_OF_RANGE", place="/animations/0/channels/0/sampler", words="3")
    d = vrma_doc(); d["accessors"][0]["count"] = 1 << 30
    case(f, "input_huge_count", "vrma", glb(dump(d), VRMA_BIN), code="GLTF_ACCESSOR_OUT_OF_VIEW", place="/accessors/0", words="")
    d = vrma_doc(); d["animations"][0]["channels"][0]["target"]["path"] = "colour"
    case(f, "channel_path_unknown", "vrma", glb(dump(d), VRMA_BIN), exit=0, note="a path glTF does not define is legal (extensions add paths): kept, not read")
    case(f, "truncated_bin", "vrma", glb(dump(vrma_doc()), VRMA_BIN)[:-8], code="GLTF_INVALID", words="")
    huge_key = struct.pack("<2f", 0.0, 1.0) + struct.pack("<8f", 0, 0, 0, 1, 1e30, 0.7071068, 0, 0.7071068)
    case(f, "rotation_key_1e30", "vrma", glb(dump(vrma_doc()), huge_key), code="ANIMATION_ROTATION_NOT_UNIT", place="/animations/0/samplers/0/output", words="key 1",
         note="a rotation key with a 1e30 component validated, then retarget said 'a joint rotation is not finite' with no accessor: refused at read, at the sampler's output")


# ------------------------------------------------------------------------------------------
# H-Anim: X3D XML, ClassicVRML, VRML97, gzip

X3D = """<?xml version="1.0" encoding="UTF-8"?>
<X3D profile='Immersive' version='4.0'>
<head><component name='HAnim' level='1'/></head>
<Scene>
<HAnimHumanoid DEF='H' name='h' version='2.0'>
<HAnimJoint containerField='skeleton' DEF='hanim_humanoid_root' name='humanoid_root' center='0 0.9 0'>
<HAnimJoint DEF='hanim_sacroiliac' name='sacroiliac' center='0 0.95 0'>
<HAnimJoint DEF='hanim_l_hip' name='l_hip' center='0.1 0.9 0'/>
</HAnimJoint>
</HAnimJoint>
<HAnimJoint USE='hanim_humanoid_root' containerField='joints'/>
<HAnimJoint USE='hanim_sacroiliac' containerField='joints'/>
<HAnimJoint USE='hanim_l_hip' containerField='joints'/>
</HAnimHumanoid>
</Scene>
</X3D>
"""

CLASSIC = """#X3D V4.0 utf8
PROFILE Immersive
COMPONENT HAnim:1
DEF H HAnimHumanoid {
  name "h"
  version "2.0"
  skeleton [
    DEF hanim_humanoid_root HAnimJoint {
      name "humanoid_root"
      center 0 0.9 0
      children [
        DEF hanim_sacroiliac HAnimJoint {
          name "sacroiliac"
          center 0 0.95 0
          children [
            DEF hanim_l_hip HAnimJoint { name "l_hip" center 0.1 0.9 0 }
          ]
        }
      ]
    }
  ]
  joints [ USE hanim_humanoid_root USE hanim_sacroiliac USE hanim_l_hip ]
}
"""

VRML97 = """#VRML V2.0 utf8
PROTO Joint [
  exposedField SFVec3f center 0 0 0
  exposedField MFNode children []
  exposedField SFString name ""
  exposedField SFRotation rotation 0 0 1 0
  exposedField SFVec3f translation 0 0 0
] { Transform { children IS children center IS center rotation IS rotation translation IS translation } }
PROTO Humanoid [
  field MFNode joints []
  exposedField SFString name ""
  exposedField MFNode humanoidBody []
  exposedField SFString version "1.1"
] { Group { children IS humanoidBody } }
DEF hanim_HumanoidRoot Joint {
  name "HumanoidRoot"
  center 0 0.9 0
  children [
    DEF hanim_sacroiliac Joint { name "sacroiliac" center 0 0.95 0
      children [ DEF hanim_l_hip Joint { name "l_hip" center 0.1 0.9 0 } ] }
  ]
}
DEF H Humanoid {
  name "h"
  version "1.1"
  humanoidBody [ USE hanim_HumanoidRoot ]
  joints [ USE hanim_HumanoidRoot USE hanim_sacroiliac USE hanim_l_hip ]
}
"""


def hanim_cases():
    f = "x3d"
    case(f, "plain", "x3d", X3D, exit=0, note="the valid seed")
    case(f, "crlf", "x3d", X3D.replace("\n", "\r\n"), exit=0, same_as="plain.x3d")
    case(f, "mixed_line_ends", "x3d", X3D.replace("\n", "\r\n", 5).replace("\n", "\r", 3), exit=0, same_as="plain.x3d", note="CRLF, CR and LF in one file")
    case(f, "bom", "x3d", b"\xef\xbb\xbf" + X3D.encode(), exit=0, same_as="plain.x3d")
    case(f, "empty", "x3d", b"", code="HANIM_INVALID", words="")
    case(f, "not_xml", "x3d", b"<<<>>>", code="HANIM_INVALID", place="1:", words="")
    cut = X3D.index("center='0 0.95")
    case(f, "truncated_in_tag", "x3d", X3D[:cut], code="HANIM_INVALID", place=line_col(X3D + "\0", "\0"[:0] or X3D[cut:cut+1], 0) if False else None, words="truncated")
    cut = X3D.index("<HAnimJoint USE='hanim_l_hip'")
    case(f, "truncated_between_elements", "x3d", X3D[:cut], code="HANIM_INVALID", words="truncated")
    bad = X3D.replace("</HAnimJoint>\n</HAnimJoint>", "</HAnimJoint>\n</Group>", 1)
    case(f, "mismatched_end_tag", "x3d", bad, code="HANIM_INVALID", place=line_col(bad, "</Group>").split(":")[0] + ":", words="XML")
    deep = X3D.replace("<Scene>", "<Scene>" + "<Group>" * 40000).replace("</Scene>", "</Group>" * 40000 + "</Scene>")
    case(f, "nested_40000", "x3d", deep, code="HANIM_INVALID", place="4:", words="nested deeper")
    deep = X3D.replace("<Scene>", "<Scene>\n" + "<Transform>\n" * 300).replace("</Scene>", "</Transform>" * 300 + "</Scene>")
    case(f, "nested_300", "x3d", deep, code="HANIM_INVALID", words="nested deeper")
    deep = X3D.replace("<Scene>", "<Scene>" + "<HAnimJoint>" * 40000).replace("</Scene>", "</HAnimJoint>" * 40000 + "</Scene>")
    case(f, "joint_chain_40000", "x3d", deep, code="HANIM_INVALID", place="4:", words="nested deeper")
    bad = X3D.replace("<HAnimJoint DEF='hanim_l_hip' name='l_hip' center='0.1 0.9 0'/>", "<HAnimJoint DEF='hanim_l_hip' name='l_hip' center='0.1 0.9 0'><HAnimJoint USE='hanim_humanoid_root'/></HAnimJoint>")
    case(f, "use_of_ancestor", "x3d", bad, code="HANIM_INVALID", place=line_col(bad, "<HAnimJoint USE='hanim_humanoid_root'/>").split(":")[0] + ":", words="")
    bad = X3D.replace("USE='hanim_l_hip'", "USE='nowhere'")
    case(f, "use_undefined", "x3d", bad, exit=None, note="an undefined USE: refused or reported, never a crash")
    bad = X3D.replace("center='0 0.95 0'", "center='0 zero 0'")
    case(f, "center_not_numbers", "x3d", bad, code="HANIM_INVALID", place=line_col(bad, "center='0 zero").split(":")[0] + ":", words="")
    bad = X3D.replace("center='0 0.95 0'", "center='0 NaN 0'")
    case(f, "center_nan", "x3d", bad, exit=None, note="NaN in a center: refused or reported, never a crash")
    bad = X3D.replace("center='0 0.95 0'", "center='0 1e999 0'")
    case(f, "center_infinite", "x3d", bad, exit=None, note="an infinite center: refused or reported, never a crash")
    case(f, "utf16", "x3d", b"\xff\xfe" + X3D.encode("utf-16-le"), exit=None, note="UTF-16: refused, never a crash")
    case(f, "nul_bytes", "x3d", X3D.replace("name='h'", "name='h\0'"), code="HANIM_INVALID", words="")
    laughs = '<?xml version="1.0"?>\n<!DOCTYPE X3D [\n<!ENTITY a "aaaaaaaaaa">\n' + "".join(
        f'<!ENTITY {chr(98 + i)} "&{chr(97 + i)};&{chr(97 + i)};&{chr(97 + i)};&{chr(97 + i)};&{chr(97 + i)};&{chr(97 + i)};&{chr(97 + i)};&{chr(97 + i)};&{chr(97 + i)};&{chr(97 + i)};">\n'
        for i in range(9)) + "]>\n" + X3D.split("\n", 1)[1].replace("name='h'", "name='&j;'")
    case(f, "billion_laughs", "x3d", laughs, code="HANIM_INVALID", words="")
    bad = X3D.replace("center='0 0.95 0'", "center='" + " ".join(["1"] * 300000) + "'")
    case(f, "center_300000_numbers", "x3d", bad, exit=None, note="a field with far too many numbers: refused or reported, never a crash")
    case(f, "no_humanoid", "x3d", "<X3D><Scene><Group/></Scene></X3D>", code="HANIM_INVALID", words="")

    f = "x3dv"
    case(f, "plain", "x3dv", CLASSIC, exit=0, note="the valid seed")
    case(f, "crlf", "x3dv", CLASSIC.replace("\n", "\r\n"), exit=0, same_as="plain.x3dv")
    case(f, "bom", "x3dv", b"\xef\xbb\xbf" + CLASSIC.encode(), exit=0, same_as="plain.x3dv")
    case(f, "empty", "x3dv", b"", code="HANIM_INVALID", words="")
    case(f, "bad_header", "x3dv", CLASSIC.replace("#X3D V4.0 utf8", "#X9D nonsense"), exit=0, note="a wrong header line is read as ClassicVRML with the warning HANIM_NO_HEADER")
    bad = CLASSIC.replace('DEF hanim_l_hip HAnimJoint { name "l_hip" center 0.1 0.9 0 }', 'DEF hanim_l_hip HAnimJoint { name "l_hip" center 0.1 0.9 0 ')
    case(f, "unbalanced_brace", "x3dv", bad, code="HANIM_INVALID", words="")
    bad = CLASSIC.replace('name "sacroiliac"', 'name "sacroiliac')
    case(f, "unterminated_string", "x3dv", bad, code="HANIM_INVALID", place="16:", words="closing quote", note="the open string runs to the next quote, so the one left open is on line 16")
    bad = CLASSIC.replace("center 0 0.95 0", "center 0 zero 0")
    case(f, "center_not_numbers", "x3dv", bad, code="HANIM_INVALID", place=line_col(bad, "zero").split(":")[0] + ":", words="")
    bad = CLASSIC.replace("  joints [", "  Group { children [ " * 0 + "  joints [")
    deep = CLASSIC.replace("skeleton [", "skeleton [ " + "Transform { children [ " * 20000 + "] } " * 20000, 1)
    case(f, "nested_20000", "x3dv", deep, code="HANIM_INVALID", place="7:", words="nested deeper")
    bad = CLASSIC.replace('DEF hanim_l_hip HAnimJoint { name "l_hip" center 0.1 0.9 0 }', 'DEF hanim_l_hip HAnimJoint { name "l_hip" center 0.1 0.9 0 children [ USE hanim_humanoid_root ] }')
    case(f, "use_of_ancestor", "x3dv", bad, code="HANIM_INVALID", place=line_col(bad, "USE hanim_humanoid_root").split(":")[0] + ":", words="")
    proto = "#X3D V4.0 utf8\nPROTO Loop [ ] { Loop { } }\nLoop { }\n" + CLASSIC.split("\n", 1)[1]
    case(f, "proto_recursion", "x3dv", proto, code="HANIM_INVALID", place="2:", words="recursive")
    proto = "#X3D V4.0 utf8\nPROTO A [ ] { B { } }\nPROTO B [ ] { A { } }\nA { }\n" + CLASSIC.split("\n", 1)[1]
    case(f, "proto_mutual_recursion", "x3dv", proto, exit=None, note="B is used before it is declared, so no recursion can arise: read or refused, never a hang")
    bad = CLASSIC.replace("center 0 0.95 0", "center 0 0.95 0 wibble 3")
    case(f, "unknown_field", "x3dv", bad, exit=None, note="an unknown field: refused or reported, never a crash")
    case(f, "nul_bytes", "x3dv", CLASSIC.replace('name "h"', 'name "h\0"'), exit=None, note="a NUL byte: refused or read, never a crash")
    case(f, "fuzz_nul_name_to_x3d", "x3dv", CLASSIC.replace('name "h"', 'name "h\0"'), exit=0, convert_to="x3d",
         note="found by the write_back fuzz target: a NUL in a ClassicVRML name was written raw into X3D XML, which cannot hold it; the written file must read back")
    case(f, "invalid_utf8", "x3dv", CLASSIC.encode().replace(b'name "h"', b'name "\xff\xfe"'), exit=None, note="invalid UTF-8: replaced and reported, never a crash")

    f = "wrl"
    case(f, "plain", "wrl", VRML97, exit=0, note="the valid VRML97 seed")
    case(f, "crlf", "wrl", VRML97.replace("\n", "\r\n"), exit=0, same_as="plain.wrl")
    case(f, "gzip", "wrl", gzip.compress(VRML97.encode(), mtime=0), exit=0, same_as="plain.wrl", note="gzip-compressed under the plain extension")
    case(f, "empty", "wrl", b"", code="HANIM_INVALID", words="")
    case(f, "bad_header", "wrl", VRML97.replace("#VRML V2.0 utf8", "#VRML V1.0 ascii"), code="HANIM_INVALID", place="1:", words="")
    bad = VRML97.replace("PROTO Humanoid [", "PROTO Humanoid [ field MFNode joints [] ", 1)
    case(f, "proto_duplicate_field", "wrl", bad, exit=None, note="a field declared twice: refused or reported, never a crash")
    deep = VRML97.replace("DEF H Humanoid {", "Group { children [ " * 20000 + "] } " * 20000 + "DEF H Humanoid {")
    case(f, "nested_20000", "wrl", deep, code="HANIM_INVALID", words="nested deeper")
    proto = VRML97.replace("PROTO Humanoid [", "PROTO Loop [ ] { Loop { } }\nLoop { }\nPROTO Humanoid [", 1)
    case(f, "proto_recursion", "wrl", proto, code="HANIM_INVALID", place="9:", words="recursive")
    gz = gzip.compress(VRML97.encode(), mtime=0)
    case(f, "gzip_truncated", "wrl", gz[: len(gz) // 2], code="HANIM_INVALID", words="gzip")
    flipped = bytearray(gz); flipped[len(gz) // 2] ^= 0xFF; flipped[len(gz) // 2 + 1] ^= 0x55
    case(f, "gzip_corrupt", "wrl", bytes(flipped), code="HANIM_INVALID", words="gzip")
    bomb = gzip.compress(b"#VRML V2.0 utf8\n" + b" " * (300 << 20), compresslevel=9, mtime=0)
    case(f, "gzip_bomb_300mb", "wrl", bomb, code="INPUT_TOO_LARGE", words="limit")
    case(f, "gzip_header_only", "wrl", b"\x1f\x8b", code="HANIM_INVALID", words="gzip")
    bad = VRML97.replace("USE hanim_sacroiliac", "USE hanim_nowhere")
    case(f, "use_undefined", "wrl", bad, code="HANIM_INVALID", place=line_col(bad, "USE hanim_nowhere").split(":")[0] + ":", words="hanim_nowhere")


# ------------------------------------------------------------------------------------------
# BVH

BVH = """HIERARCHY
ROOT Hips
{
  OFFSET 0 90 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT Spine
  {
    OFFSET 0 10 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    End Site
    {
      OFFSET 0 10 0
    }
  }
}
MOTION
Frames: 2
Frame Time: 0.033333
0 90 0 0 0 0 0 0 0
0 91 0 0 10 0 5 0 0
"""


def bvh_cases():
    f = "bvh"
    case(f, "plain", "bvh", BVH, exit=0, note="the valid seed")
    case(f, "crlf", "bvh", BVH.replace("\n", "\r\n"), exit=0, same_as="plain.bvh")
    case(f, "cr_only", "bvh", BVH.replace("\n", "\r"), exit=None, note="old Mac line ends: read the same or refused, never a crash")
    case(f, "mixed_line_ends", "bvh", BVH.replace("\n", "\r\n", 7), exit=0, same_as="plain.bvh")
    case(f, "bom", "bvh", b"\xef\xbb\xbf" + BVH.encode(), exit=0, same_as="plain.bvh")
    case(f, "tabs", "bvh", BVH.replace("  ", "\t"), exit=0, same_as="plain.bvh")
    case(f, "empty", "bvh", b"", code="BVH_INVALID", words="")
    case(f, "no_hierarchy", "bvh", BVH.replace("HIERARCHY\n", ""), code="BVH_INVALID", place="1:1", words="HIERARCHY")
    case(f, "no_root", "bvh", BVH.replace("ROOT Hips", "JOINT Hips"), code="BVH_INVALID", place="2:1", words="ROOT")
    case(f, "truncated_hierarchy", "bvh", BVH[: BVH.index("End Site")], code="BVH_INVALID", words="")
    case(f, "truncated_motion", "bvh", BVH[: BVH.rindex("10 0 5")], code="BVH_INVALID", words="")
    bad = BVH.replace("    }\n  }\n}", "    }\n  }\n")
    case(f, "unbalanced_braces", "bvh", bad, code="BVH_INVALID", words="")
    bad = BVH.replace("CHANNELS 3 Zrotation", "CHANNELS 7 Zrotation")
    case(f, "channel_count_mismatch", "bvh", bad, code="BVH_INVALID", place="9:", words="")
    bad = BVH.replace("CHANNELS 3 Zrotation Xrotation Yrotation", "CHANNELS 1000000000 Zrotation")
    case(f, "channel_count_huge", "bvh", bad, code="BVH_INVALID", place="9:", words="")
    bad = BVH.replace("CHANNELS 3 Zrotation Xrotation Yrotation", "CHANNELS 3 Zrotation Xrotation Wrotation")
    case(f, "channel_unknown", "bvh", bad, code="BVH_INVALID", place="9:", words="Wrotation")
    case(f, "frames_negative", "bvh", BVH.replace("Frames: 2", "Frames: -1"), code="BVH_INVALID", place="17:", words="")
    case(f, "frames_huge", "bvh", BVH.replace("Frames: 2", "Frames: 1000000000000"), code="BVH_INVALID", place="17:", words="")
    case(f, "frames_not_a_number", "bvh", BVH.replace("Frames: 2", "Frames: two"), code="BVH_INVALID", place="17:", words="")
    case(f, "frame_time_zero", "bvh", BVH.replace("Frame Time: 0.033333", "Frame Time: 0"), code="BVH_INVALID", place="18:", words="")
    case(f, "frame_time_negative", "bvh", BVH.replace("Frame Time: 0.033333", "Frame Time: -1"), code="BVH_INVALID", place="18:", words="")
    case(f, "frame_time_nan", "bvh", BVH.replace("Frame Time: 0.033333", "Frame Time: nan"), code="BVH_INVALID", place="18:", words="")
    case(f, "value_nan", "bvh", BVH.replace("0 91 0 0 10 0 5 0 0", "0 91 0 0 nan 0 5 0 0"), code="BVH_INVALID", place="20:", words="")
    case(f, "value_infinite", "bvh", BVH.replace("0 91 0 0 10 0 5 0 0", "0 91 0 0 1e999 0 5 0 0"), code="BVH_INVALID", place="20:", words="")
    case(f, "value_not_a_number", "bvh", BVH.replace("0 91 0 0 10 0 5 0 0", "0 91 0 0 ten 0 5 0 0"), code="BVH_INVALID", place="20:", words="")
    case(f, "fewer_values", "bvh", BVH.replace("0 91 0 0 10 0 5 0 0", "0 91 0 0 10 0 5"), code="BVH_INVALID", words="")
    case(f, "more_values", "bvh", BVH.replace("0 91 0 0 10 0 5 0 0", "0 91 0 0 10 0 5 0 0 7 7"), code="BVH_INVALID", words="")
    case(f, "fewer_frames", "bvh", BVH.replace("Frames: 2", "Frames: 3"), code="BVH_INVALID", words="")
    deep = "HIERARCHY\nROOT Hips\n{\n  OFFSET 0 90 0\n  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
    for i in range(300):
        deep += f"JOINT J{i}\n{{\nOFFSET 0 1 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n"
    deep += "}\n" * 301 + "MOTION\nFrames: 0\nFrame Time: 0.03\n"
    case(f, "nested_300", "bvh", deep, code="BVH_INVALID", words="deeper")
    deep = "HIERARCHY\nROOT Hips\n{\nOFFSET 0 90 0\nCHANNELS 0\n" + "JOINT J\n{\nOFFSET 0 1 0\nCHANNELS 0\n" * 20000 + "}\n" * 20001 + "MOTION\nFrames: 0\nFrame Time: 0.03\n"
    case(f, "nested_20000", "bvh", deep, code="BVH_INVALID", words="deeper")
    case(f, "utf16", "bvh", b"\xff\xfe" + BVH.encode("utf-16-le"), code="INPUT_NOT_UTF8", place="byte 0", words="UTF-16")
    bad = BVH.encode().replace(b"ROOT Hips", b"ROOT H\xffips")
    case(f, "invalid_utf8", "bvh", bad, code="INPUT_NOT_UTF8", place="byte %d" % bad.index(b'\xff'), words="UTF-8")
    case(f, "nul_bytes", "bvh", BVH.replace("ROOT Hips", "ROOT Hi\0ps"), exit=None, note="a NUL in a joint name: read as a name or refused, never a crash")
    case(f, "only_motion", "bvh", "MOTION\nFrames: 1\nFrame Time: 0.03\n0\n", code="BVH_INVALID", place="1:1", words="HIERARCHY")
    long_name = BVH.replace("JOINT Spine", "JOINT " + "S" * 1_000_000)
    case(f, "megabyte_joint_name", "bvh", long_name, exit=None, note="a 1 MB joint name: read or refused within a second")
    many = "HIERARCHY\nROOT Hips\n{\nOFFSET 0 90 0\nCHANNELS 0\n" + "".join(f"JOINT {i}\n{{\nOFFSET 0 1 0\nCHANNELS 0\n}}\n" for i in range(70000)) + "}\nMOTION\nFrames: 0\nFrame Time: 0.03\n"
    case(f, "joints_70000", "bvh", many, code="BVH_INVALID", words="")


# ------------------------------------------------------------------------------------------
# Godot .tres

TRES = """[gd_resource type="SkeletonProfileHumanoid" format=3]

[resource]
"""

BONEMAP = """[gd_resource type="BoneMap" load_steps=2 format=3]

[ext_resource type="SkeletonProfile" path="res://profile.tres" id="1"]

[resource]
profile = ExtResource("1")
bone_map/Hips = &"mixamorig_Hips"
"""


def godot_cases():
    f = "tres"
    case(f, "plain", "tres", TRES, exit=0, note="the valid seed: Godot's humanoid profile")
    case(f, "crlf", "tres", TRES.replace("\n", "\r\n"), exit=0, same_as="plain.tres")
    case(f, "empty", "tres", b"", code="GODOT_INVALID", place="1:1", words="no section")
    case(f, "comment_only", "tres", "; nothing here\n", code="GODOT_INVALID", place="1:1", words="no section")
    case(f, "unterminated_header", "tres", '[gd_resource type="BoneMap" format=3\n', code="GODOT_INVALID", place="1:", words="")
    case(f, "unterminated_string", "tres", TRES.replace('type="SkeletonProfileHumanoid"', 'type="SkeletonProfileHumanoid'), code="GODOT_INVALID", words="")
    deep = TRES + "x = " + "[" * 5000 + "]" * 5000 + "\n"
    case(f, "nested_5000", "tres", deep, code="GODOT_INVALID", place="4:", words="deep")
    deep = TRES + "x = " + "{\"a\": " * 3000 + "1" + "}" * 3000 + "\n"
    case(f, "dict_nested_3000", "tres", deep, code="GODOT_INVALID", place="4:", words="deep")
    case(f, "unknown_constructor", "tres", TRES + "x = Frobnicate(1, 2)\n", code="GODOT_INVALID", place="4:", words="Frobnicate")
    case(f, "sub_resource_undeclared", "tres", TRES + 'x = SubResource("nope")\n', code="GODOT_INVALID", place="4:", words="nope")
    case(f, "utf16", "tres", b"\xff\xfe" + TRES.encode("utf-16-le"), code="INPUT_NOT_UTF8", place="byte 0", words="UTF-16")
    bad = TRES.encode().replace(b"[resource]", b"[reso\xffurce]")
    case(f, "invalid_utf8", "tres", bad, code="INPUT_NOT_UTF8", place="byte %d" % bad.index(b'\xff'), words="UTF-8")
    case(f, "number_garbage", "tres", TRES + "x = 1.2.3\n", code="GODOT_INVALID", place="4:", words="")


# ------------------------------------------------------------------------------------------
# Mapping tables (validated as `humanoid validate table.toml`)

TABLE_HEAD = '''title = "Case"
description = "A golden-suite table"
source = "tests/malformed"
'''
REQUIRED = {"hips": "Hips", "spine": "Spine", "head": "Head", "leftUpperArm": "LArm",
            "leftLowerArm": "LForeArm", "leftHand": "LHand", "rightUpperArm": "RArm",
            "rightLowerArm": "RForeArm", "rightHand": "RHand", "leftUpperLeg": "LThigh",
            "leftLowerLeg": "LShin", "leftFoot": "LFoot", "rightUpperLeg": "RThigh",
            "rightLowerLeg": "RShin", "rightFoot": "RFoot"}


def table(name, extra="", bones=REQUIRED):
    name = name.replace("_", "-")
    body = "".join(f'{k} = "{v}"\n' for k, v in bones.items())
    return f'name = "{name}"\n' + TABLE_HEAD + "\n[bones]\n" + body + extra


def toml_case(fmt, name, *args, **kwargs):
    """A table's name must be its file stem, in lower case with '-'."""
    return globals()["case"](fmt, name.replace("_", "-"), *args, **kwargs)


def table_cases():
    f = "toml"
    case = toml_case
    case(f, "plain", "toml", table("plain"), exit=0, note="a valid table: its name is its file stem")
    case(f, "crlf", "toml", table("crlf").replace("\n", "\r\n"), exit=0, note="CRLF line ends")
    case(f, "empty", "toml", b"", code="MAPPING_TABLE_INVALID", words="")
    case(f, "not_toml", "toml", "this is = = not toml\n", code="MAPPING_TABLE_INVALID", place="1:", words="")
    text = table("unknown_bone", 'tail = "Tail"\n')
    case(f, "unknown_bone", "toml", text, code="MAPPING_TABLE_INVALID", place=line_col(text, "tail ="), words="tail")
    text = table("name_not_stem").replace('name = "name-not-stem"', 'name = "other"')
    case(f, "name_not_stem", "toml", text, code="MAPPING_TABLE_INVALID", place="1:8", words="file stem")
    bones = dict(REQUIRED); bones["spine"] = "Hips"
    text = table("rig_name_twice", bones=bones)
    case(f, "rig_name_twice", "toml", text, code="MAPPING_TABLE_INVALID", words="Hips")
    bones = dict(REQUIRED); del bones["head"]
    case(f, "required_missing", "toml", table("required_missing", bones=bones), code="MAPPING_TABLE_INVALID", words="head")
    text = table("wrong_type", "jaw = 3\n")
    case(f, "wrong_type", "toml", text, code="MAPPING_TABLE_INVALID", place=line_col(text, "jaw ="), words="")
    lines = "".join(f"b{i} = \"x{i}\"\n" for i in range(40000))
    case(f, "many_lines", "toml", table("many_lines", lines), code="MAPPING_TABLE_INVALID", words="more")
    case(f, "over_1mb", "toml", table("over_1mb") + "# " + "x" * (1 << 20) + "\n", code="INPUT_TOO_LARGE", words="HUMANOID_MAX_TABLE_BYTES")
    case(f, "nested_inline_tables", "toml", table("nested_inline_tables", "x = " + "{ a = " * 2000 + "1" + " }" * 2000 + "\n"), code="MAPPING_TABLE_INVALID", words="")
    case(f, "nested_arrays", "toml", table("nested_arrays", "x = " + "[" * 5000 + "]" * 5000 + "\n"), code="MAPPING_TABLE_INVALID", words="")
    bad = table("invalid_utf8").encode().replace(b'"Hips"', b'"Hi\xffps"')
    case(f, "invalid_utf8", "toml", bad, code="INPUT_NOT_UTF8", place="byte %d" % bad.index(b'\xff'), words="UTF-8")
    case(f, "utf16", "toml", b"\xff\xfe" + table("utf16").encode("utf-16-le"), code="INPUT_NOT_UTF8", place="byte 0", words="UTF-16")

# ------------------------------------------------------------------------------------------
# FBX (read through ufbx): a small binary FBX 7.4 written here record by record (node:
# end offset, property count, property bytes, name; properties typed by one letter; arrays
# with a count, an encoding (0 raw, 1 zlib) and a byte length), and the same scene in ASCII.

FBX_MAGIC = b"Kaydara FBX Binary  \x00\x1a\x00"


def fbx_prop(v):
    if isinstance(v, float):
        return b"D" + struct.pack("<d", v)
    if isinstance(v, int):
        return b"L" + struct.pack("<q", v)
    if isinstance(v, str):
        raw = v.encode("utf-8")
        return b"S" + struct.pack("<I", len(raw)) + raw
    kind, values, declared, encoding = v  # an array: ("d" or "i", values, declared count or None, 0/1)
    raw = struct.pack("<%d%s" % (len(values), "d" if kind == "d" else "i"), *values)
    if encoding == 1:
        raw = zlib.compress(raw)
    count = len(values) if declared is None else declared
    return kind.encode() + struct.pack("<III", count, encoding, len(raw)) + raw


def fbx_node(name, props, children, offset):
    """One node record at byte `offset` (FBX < 7.5: 32-bit header fields, 13-byte null record)."""
    props_raw = b"".join(fbx_prop(p) for p in props)
    head = 13 + len(name)
    body = b""
    at = offset + head + len(props_raw)
    for child in children:
        encoded = fbx_node(*child, at + len(body))
        body += encoded
    if children:
        body += b"\0" * 13
    end = offset + head + len(props_raw) + len(body)
    return struct.pack("<III", end, len(props), len(props_raw)) + bytes([len(name)]) + name.encode() + props_raw + body


def fbx_binary(nodes):
    out = FBX_MAGIC + struct.pack("<I", 7400)
    for node in nodes:
        out += fbx_node(*node, len(out))
    return out + b"\0" * 13


def fbx_scene(vertices=("d", [0.0, 0.0, 0.0, 10.0, 0.0, 0.0, 0.0, 10.0, 0.0], None, 0),
              indices=("i", [0, 1, -3], None, 0), spine=(0.0, 10.0, 0.0)):
    p70 = lambda x, y, z: ("Properties70", [], [("P", ["Lcl Translation", "Lcl Translation", "", "A", x, y, z], [])])
    model = lambda uid, name, kind, t: ("Model", [uid, name + "\x00\x01Model", kind], [("Version", [232], []), p70(*t)])
    return [
        ("FBXHeaderExtension", [], [("FBXHeaderVersion", [1003], []), ("FBXVersion", [7400], [])]),
        ("Objects", [], [
            model(1000, "Hips", "LimbNode", (0.0, 100.0, 0.0)),
            model(1001, "Spine", "LimbNode", spine),
            model(1002, "Body", "Mesh", (0.0, 0.0, 0.0)),
            ("Geometry", [2000, "Body\x00\x01Geometry", "Mesh"], [
                ("Vertices", [vertices], []),
                ("PolygonVertexIndex", [indices], []),
            ]),
        ]),
        ("Connections", [], [
            ("C", ["OO", 1000, 0], []),
            ("C", ["OO", 1001, 1000], []),
            ("C", ["OO", 1002, 0], []),
            ("C", ["OO", 2000, 1002], []),
        ]),
    ]


FBX_ASCII = """; FBX 7.4.0 project file
FBXHeaderExtension:  {
\tFBXHeaderVersion: 1003
\tFBXVersion: 7400
}
Objects:  {
\tModel: 1000, "Model::Hips", "LimbNode" {
\t\tVersion: 232
\t\tProperties70:  {
\t\t\tP: "Lcl Translation", "Lcl Translation", "", "A",0,100,0
\t\t}
\t}
\tModel: 1001, "Model::Spine", "LimbNode" {
\t\tVersion: 232
\t\tProperties70:  {
\t\t\tP: "Lcl Translation", "Lcl Translation", "", "A",0,10,0
\t\t}
\t}
}
Connections:  {
\tC: "OO",1000,0
\tC: "OO",1001,1000
}
"""


def fbx_cases():
    f = "fbx"
    seed = fbx_binary(fbx_scene())
    case(f, "plain", "fbx", seed, exit=0, note="the valid seed (binary FBX 7.4: two joints and a triangle)")
    case(f, "ascii", "fbx", FBX_ASCII, exit=0, note="the same skeleton as ASCII FBX")
    case(f, "empty", "fbx", b"", code="FBX_INVALID", words="ufbx", note="no bytes")
    case(f, "truncated_half", "fbx", seed[: len(seed) // 2], code="FBX_INVALID", words="Truncated", note="cut in the middle of a record")
    case(f, "truncated_header", "fbx", seed[:20], code="FBX_INVALID", words="ufbx", note="cut inside the magic")
    bad = bytearray(seed)
    bad[0] ^= 0xFF
    case(f, "flipped_magic", "fbx", bytes(bad), code="FBX_INVALID", words="ufbx", note="the magic's first byte flipped: not FBX")
    at = len(FBX_MAGIC) + 4  # the first record's end offset
    bad = bytearray(seed)
    bad[at + 3] ^= 0x7F
    case(f, "flipped_end_offset", "fbx", bytes(bad), exit=None,
         note="the first record's end offset points far past the file: ufbx reads records by their lengths and may recover; read or refused, never a crash")
    at = seed.index(b"Vertices") + len(b"Vertices")
    bad = bytearray(seed)
    bad[at] = ord("Q")
    case(f, "flipped_property_type", "fbx", bytes(bad), code="FBX_INVALID", words="ufbx", note="an array property's type letter is no FBX type")
    huge = ("d", [0.0] * 9, 0x20000000, 1)
    case(f, "array_4gb_declared", "fbx", fbx_binary(fbx_scene(huge)), code="FBX_INVALID", words="Memory limit",
         note="a zlib array that declares 2^29 doubles (4 GiB) in a few bytes: refused by the memory limit, never allocated")
    zeros = ("i", [0] * 2_999_999 + [-1], None, 1)
    case(f, "polygon_of_3m_zeros", "fbx", fbx_binary(fbx_scene(indices=zeros)), code="FBX_MESH_TOO_LARGE", words="Body",
         note="a zlib PolygonVertexIndex of 3 million zeros (12 KB): one polygon that would expand to 9 million triangle corners; counted and refused before a vertex is made (7 million took 3.2 GB)")
    for name, value in [("nan", float("nan")), ("inf", float("inf")), ("1e200", 1e200)]:
        case(f, f"translation_{name}", "fbx", fbx_binary(fbx_scene(spine=(value, 10.0, 0.0))), code="FBX_NOT_FINITE", words="Spine",
             note=f"a joint's Lcl Translation x is {name}: refused at read, naming the node (convert said only \"invalid type: null\")")
    nan_vertex = ("d", [0.0, 0.0, 0.0, float("nan"), 0.0, 0.0, 0.0, 10.0, 0.0], None, 0)
    case(f, "vertex_nan", "fbx", fbx_binary(fbx_scene(vertices=nan_vertex)), code="FBX_NOT_FINITE", words="Body",
         note="a vertex position is NaN: refused at read, naming the mesh")
    case(f, "ascii_truncated", "fbx", FBX_ASCII[: FBX_ASCII.index("Connections")], exit=None,
         note="ASCII cut before its connections: read (the joints unparented) or refused, never a crash")


# ------------------------------------------------------------------------------------------
# The Khronos avatar drafts (KHR_character*, KHR_skeleton_bone, visibility hints)

def khr_cases():
    f = "gltf"
    base = {
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [len(BONES)]}],
        "nodes": humanoid_nodes() + [{"name": "Character", "children": [0]}],
    }

    def with_ext(ext, used=None):
        d = json.loads(json.dumps(base))
        d["extensions"] = ext
        d["extensionsUsed"] = used if used is not None else list(ext)
        return d

    rig = {b: {"node": i, "name": b} for i, b in enumerate(BONES)}
    uri = "https://github.com/vrm-c/vrm-specification/blob/master/specification/VRMC_vrm-1.0/humanoid.md"
    good = {"KHR_character": {"rootNode": len(BONES)},
            "KHR_character_skeleton_mapping": {"skeletalRigMappings": {uri: rig}}}
    case(f, "khr_character_plain", "gltf", dump(with_ext(good)), exit=0, note="the valid KHR_character seed the next cases break")
    bad = json.loads(json.dumps(good)); bad["KHR_character"] = {}
    case(f, "khr_character_no_root", "gltf", dump(with_ext(bad)), code="KHR_CHARACTER_INVALID", place="/extensions/KHR_character", words="rootNode")
    bad = json.loads(json.dumps(good)); bad["KHR_character_skeleton_mapping"]["skeletalRigMappings"][uri]["hips"]["node"] = 99
    case(f, "khr_mapping_node_out_of_range", "gltf", dump(with_ext(bad)), code="KHR_CHARACTER_INVALID",
         place="/extensions/KHR_character_skeleton_mapping/skeletalRigMappings/" + uri.replace("/", "~1") + "/hips/node", words="99")
    bad = json.loads(json.dumps(good)); bad["KHR_character_skeleton_mapping"] = {"skeletalRigMappings": [1, 2]}
    case(f, "khr_mapping_not_object", "gltf", dump(with_ext(bad)), code="KHR_CHARACTER_INVALID",
         place="/extensions/KHR_character_skeleton_mapping", words="skeletalRigMappings")
    bad = with_ext(good, used=list(good) + ["KHR_skeleton_bone"])
    bad["nodes"][1]["extensions"] = {"KHR_skeleton_bone": {"length": -1}}
    case(f, "khr_skeleton_bone_negative_length", "gltf", dump(bad), code="KHR_SKELETON_BONE_INVALID",
         place="/nodes/1/extensions/KHR_skeleton_bone/length", words="")
    bad = with_ext(dict(good, KHR_character_expression={"expressions": [{"expression": "happy", "animation": 5}]}))
    case(f, "khr_expression_animation_out_of_range", "gltf", dump(bad), code="KHR_EXPRESSION_INVALID",
         place="/extensions/KHR_character_expression/expressions/0/animation", words="5")
    bad = with_ext(good, used=list(good) + ["KHR_node_visibility_hint"])
    bad["nodes"][4]["extensions"] = {"KHR_node_visibility_hint": {"label": "face"}}
    case(f, "khr_visibility_hint_no_role", "gltf", dump(bad), code="KHR_VISIBILITY_INVALID",
         place="/nodes/4/extensions/KHR_node_visibility_hint", words="role")
    bad = with_ext(good, used=list(good) + ["KHR_node_lookat_target"])
    bad["nodes"][4]["extensions"] = {"KHR_node_lookat_target": {"hint": ""}}
    case(f, "khr_lookat_target_empty_hint", "gltf", dump(bad), code="KHR_LOOKAT_TARGET_INVALID",
         place="/nodes/4/extensions/KHR_node_lookat_target/hint", words="non-empty")
    pose = with_ext(good, used=list(good) + ["KHR_character_reference_pose"])
    data = base64.b64encode(struct.pack("<4f", 0, 0, 1, 0)).decode()
    pose["buffers"] = [{"byteLength": 16, "uri": "data:application/octet-stream;base64," + data}]
    pose["bufferViews"] = [{"buffer": 0, "byteLength": 4}, {"buffer": 0, "byteOffset": 4, "byteLength": 12}]
    pose["accessors"] = [{"bufferView": 0, "componentType": 5126, "count": 1, "type": "SCALAR", "min": [0], "max": [0]},
                         {"bufferView": 1, "componentType": 5126, "count": 1, "type": "VEC3"}]
    pose["animations"] = [{"samplers": [{"input": 0, "output": 1, "interpolation": "STEP"}],
                           "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}],
                           "extensions": {"KHR_character_reference_pose": {"poseType": 5}}}]
    case(f, "khr_reference_pose_type_not_string", "gltf", dump(pose), code="KHR_REFERENCE_POSE_INVALID",
         place="/animations/0/extensions/KHR_character_reference_pose/poseType", words="non-empty string")


def main():
    for fmt in ["gltf", "glb", "vrm", "vrma", "x3d", "x3dv", "wrl", "bvh", "tres", "toml", "fbx"]:
        shutil.rmtree(os.path.join(HERE, fmt), ignore_errors=True)
    gltf_cases()
    vrm_cases()
    hanim_cases()
    bvh_cases()
    godot_cases()
    table_cases()
    fbx_cases()
    khr_cases()
    total = sum(COUNT.values())
    print(", ".join(f"{k} {v}" for k, v in COUNT.items()), f"= {total} cases")


if __name__ == "__main__":
    main()
