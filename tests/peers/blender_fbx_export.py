# Blender's own FBX exporter as the maker of Mixamo-named FBX test files (issue 20).
#
#   blender -b --factory-startup --python blender_fbx_export.py -- IN.glb OUT_DIR (mesh|armature)
#
# Imports IN.glb with Blender's glTF importer and writes OUT_DIR/CLIP.fbx for each of its
# animations, one take per file as Mixamo's downloads are: the meshes with the armature (`mesh`)
# or the armature alone (`armature`: an animation-only FBX, as Mixamo's "without skin"
# download). The exporter's options keep every key (bake_anim_simplify_factor=0) and add no bone
# (add_leaf_bones=False); the take is named after the clip. Prints one line `BLENDER_JSON {...}`:
# the frame rate and each clip's frame range.
import json
import os
import sys

import bpy
import numpy

# Blender 3.4's glTF importer still uses numpy.bool, which numpy 1.24 removed.
numpy.bool = bool

src, out_dir, kind = sys.argv[sys.argv.index("--") + 1:][:3]
bpy.ops.wm.read_factory_settings(use_empty=True)
# The rest pose is the glTF nodes' own (not one guessed from the inverse bind matrices), so the
# FBX holds the rest the GLB declares.
bpy.ops.import_scene.gltf(filepath=src, guess_original_bind_pose=False)
if kind == "armature":
    for obj in [o for o in bpy.data.objects if o.type == "MESH"]:
        bpy.data.objects.remove(obj, do_unlink=True)
types = {"ARMATURE", "EMPTY", "MESH"} if kind == "mesh" else {"ARMATURE", "EMPTY"}

# The importer names each glTF animation's action per object: "<animation>_<object>".
objects = list(bpy.data.objects)
clips = sorted({a.name[: -len(o.name) - 1] for a in bpy.data.actions for o in objects
                if a.name.endswith("_" + o.name)})
# The GLB's images, written as files beside the FBX that name them (relative paths), as a
# character downloaded with its textures folder is.
if kind == "mesh":
    for image in bpy.data.images:
        if image.packed_file is not None:
            image.filepath_raw = os.path.join(out_dir, image.name + ".jpg")
            image.file_format = "JPEG"
            image.save()
    # The glTF importer multiplies the base colour texture by baseColorFactor through a node
    # that Blender's FBX exporter cannot follow: the image goes straight to Base Color.
    def upstream_image(node, depth=0):
        for socket in node.inputs:
            for link in socket.links:
                if link.from_node.type == "TEX_IMAGE":
                    return link.from_node
                found = depth < 4 and upstream_image(link.from_node, depth + 1)
                if found:
                    return found
        return None
    for material in bpy.data.materials:
        if not material.use_nodes:
            continue
        tree = material.node_tree
        bsdf = next((n for n in tree.nodes if n.type == "BSDF_PRINCIPLED"), None)
        base = bsdf and bsdf.inputs["Base Color"]
        if base and base.is_linked and base.links[0].from_node.type != "TEX_IMAGE":
            image = upstream_image(base.links[0].from_node)
            if image:
                tree.links.new(image.outputs["Color"], base)
scene = bpy.context.scene
ranges = {}
for clip in clips:
    start, end = None, None
    for obj in objects:
        action = bpy.data.actions.get(clip + "_" + obj.name)
        if obj.animation_data is None and action is None:
            continue
        if obj.animation_data is None:
            obj.animation_data_create()
        obj.animation_data.action = action
        if action is not None:
            s, e = action.frame_range
            start = s if start is None else min(start, s)
            end = e if end is None else max(end, e)
    scene.frame_start, scene.frame_end = int(start), int(end)
    scene.name = clip
    ranges[clip] = [start, end]
    bpy.ops.export_scene.fbx(
        filepath=os.path.join(out_dir, clip + ".fbx"),
        object_types=types,
        add_leaf_bones=False,
        bake_anim=True,
        bake_anim_use_all_actions=False,
        bake_anim_use_nla_strips=False,
        bake_anim_force_startend_keying=True,
        bake_anim_simplify_factor=0.0,
        # Textures as files beside the FBX, named by relative paths, not embedded.
        path_mode="RELATIVE",
        embed_textures=False,
    )
print("BLENDER_JSON " + json.dumps({
    "ok": True,
    "fps": scene.render.fps / scene.render.fps_base,
    "clips": ranges,
}))
