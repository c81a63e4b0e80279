# Imports many BVH files with Blender's own BVH importer (a real client), one after another in one
# Blender process, and prints what Blender sees of each (the same fields as
# shared/tools/blender-gltf/blender_bvh.py).
# Usage: blender -b --factory-startup --python blender_bvh_batch.py -- FILE.bvh...
# -> one line per file: BLENDER_JSON {"file", "ok", "bones", "frames", "error"}
# Blender 3.4's importer opens files with mode 'rU', which Python 3.11 removed: the shim drops the 'U'.
import builtins, json, sys
_open = builtins.open
builtins.open = lambda f, mode="r", *a, **k: _open(f, mode.replace("U", ""), *a, **k)
import bpy

for path in sys.argv[sys.argv.index("--") + 1:]:
    bpy.ops.wm.read_factory_settings(use_empty=True)
    out = {"file": path, "ok": False, "bones": 0, "frames": 0, "error": None}
    try:
        bpy.ops.import_anim.bvh(filepath=path)
        arm = [o for o in bpy.data.objects if o.type == "ARMATURE"]
        out["ok"] = bool(arm)
        if arm:
            a = arm[0]
            out["bones"] = len(a.data.bones)
            act = a.animation_data.action if a.animation_data else None
            if act:
                # Keys per channel: one per frame. (`act.frame_range` is never shorter than one
                # frame, so a one-frame file read as two.)
                out["frames"] = max((len(fc.keyframe_points) for fc in act.fcurves), default=0)
    except Exception as e:
        out["error"] = str(e).splitlines()[-1] if str(e) else type(e).__name__
    print("BLENDER_JSON " + json.dumps(out), flush=True)
