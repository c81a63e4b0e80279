//! Godot 4 text resources: SkeletonProfile(Humanoid) and BoneMap (in progress).
