//! H-Anim: X3D XML, ClassicVRML and VRML97 (in progress).
