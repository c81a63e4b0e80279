# Blender's own FBX exporter as the maker of FBX files whose node transforms disagree with their
# bind pose (issue 33).
#
#   blender -b --factory-startup --python blender_fbx_bindpose.py -- IN.glb OUT_DIR
#
# Imports IN.glb with Blender's glTF importer (the rest is the glTF nodes' own), drops its
# animations and poses the armature: the hips turned 180 degrees about X and moved, the left arm
# raised, the right forearm bent. The FBX's bones then stand in that pose (`Lcl` transforms)
# while its bind pose and skin clusters hold the rest. Writes OUT_DIR/VARIANT.fbx for each
# exporter setting below (axes, unit scale, space transform, leaf bones), no animation. Prints
# one line `BLENDER_JSON {...}`: each variant's file scale (how much larger than the GLB the
# character reads in metres) and, at the rest, each bone's head and each object's origin in
# metres, +Y up (Blender's (x, z, -y)), and the bones' names.
import json
import math
import os
import sys

import bpy
import numpy
from mathutils import Quaternion, Vector

# Blender 3.4's glTF importer still uses numpy.bool, which numpy 1.24 removed.
numpy.bool = bool

src, out_dir = sys.argv[sys.argv.index("--") + 1:][:2]
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath=src, guess_original_bind_pose=False)

armature = next(o for o in bpy.data.objects if o.type == "ARMATURE")
for obj in bpy.data.objects:
    if obj.animation_data is not None:
        obj.animation_data.action = None
pose = armature.pose.bones
for bone in pose:
    bone.rotation_mode = "QUATERNION"
    bone.rotation_quaternion = Quaternion()
    bone.location = Vector()
    bone.scale = Vector((1.0, 1.0, 1.0))
bpy.context.view_layer.update()


def y_up(p):
    # Blender is +Z up, -Y forward; glTF and the FBX reader +Y up, +Z forward.
    return [p.x, p.z, -p.y]


# Blender's own scene at the rest: every bone's head and every object's origin. (Its glTF
# importer puts the GLB's nodes that are no skin joint, such as Thumb3, on empties parented to
# a bone, not always where the GLB has them: these positions, not the GLB's, are the FBX's.)
rest = {b.name: y_up(armature.matrix_world @ b.head_local) for b in armature.data.bones}
rest.update({o.name: y_up(o.matrix_world.translation) for o in bpy.data.objects})
pose["mixamorig:Hips"].rotation_quaternion = Quaternion((1.0, 0.0, 0.0), math.pi)
pose["mixamorig:Hips"].location = Vector((10.0, 20.0, -30.0))
pose["mixamorig:LeftArm"].rotation_quaternion = Quaternion((0.0, 0.0, 1.0), math.radians(80))
pose["mixamorig:RightForeArm"].rotation_quaternion = Quaternion((1.0, 0.0, 0.0), math.radians(60))
bpy.context.view_layer.update()

# (variant, scene unit scale, exporter options, how much larger the character reads).
variants = [
    ("y_up", 1.0, {}, 1.0),
    ("z_up", 1.0, {"axis_up": "Z", "axis_forward": "Y"}, 1.0),
    ("x_up", 1.0, {"axis_up": "X", "axis_forward": "-Z"}, 1.0),
    # UnitScaleFactor 10 (decimetres), numbers in decimetres: the character's own size.
    ("decimetres", 0.1, {"apply_unit_scale": True, "apply_scale_options": "FBX_SCALE_UNITS",
                         "global_scale": 10.0}, 1.0),
    # UnitScaleFactor 10, numbers in metres: a character a tenth of its size.
    ("decimetre_unit_metre_numbers", 1.0, {"apply_scale_options": "FBX_SCALE_ALL",
                                           "global_scale": 0.1}, 0.1),
    # UnitScaleFactor 10, numbers in centimetres: ten times its size.
    ("custom_scale", 1.0, {"apply_scale_options": "FBX_SCALE_CUSTOM", "global_scale": 10.0}, 10.0),
    ("bake_space", 1.0, {"bake_space_transform": True}, 1.0),
    ("bake_space_z_up", 1.0, {"bake_space_transform": True, "axis_up": "Z",
                              "axis_forward": "Y"}, 1.0),
    ("leaf_bones", 1.0, {"add_leaf_bones": True}, 1.0),
]
scales = {}
for name, unit, options, scale in variants:
    bpy.context.scene.unit_settings.scale_length = unit
    bpy.ops.export_scene.fbx(
        filepath=os.path.join(out_dir, name + ".fbx"),
        object_types={"ARMATURE", "EMPTY", "MESH"},
        bake_anim=False,
        **{"add_leaf_bones": False, **options},
    )
    scales[name] = scale
bones = [b.name for b in armature.data.bones]
print("BLENDER_JSON " + json.dumps({"ok": True, "scales": scales, "rest": rest, "bones": bones}))
