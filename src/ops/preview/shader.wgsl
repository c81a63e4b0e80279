// The preview's shaders: skinned meshes (morph targets, then linear blend skinning with 8
// influences), the ground with its grid, and the 2D overlay. Colours are linear; the target
// is sRGB.

struct Globals {
    view_proj: mat4x4<f32>,
    // xyz: unit vector towards the light.
    light_dir: vec4<f32>,
    // x: ground height, y: grid spacing, z: half-size of the ground square, w: unused.
    ground: vec4<f32>,
    // xyz: the centre of the ground square.
    ground_centre: vec4<f32>,
    ground_color: vec4<f32>,
    grid_color: vec4<f32>,
    background: vec4<f32>,
    // xy: the picture's size in pixels.
    viewport: vec4<f32>,
};

@group(0) @binding(0) var<uniform> globals: Globals;

struct Material {
    base_color: vec4<f32>,
    // x: alpha cutoff (MASK: fragments below are discarded).
    alpha: vec4<f32>,
};

@group(1) @binding(0) var<storage, read> palette: array<mat4x4<f32>>;
@group(1) @binding(1) var<uniform> material: Material;
@group(1) @binding(2) var base_texture: texture_2d<f32>;
@group(1) @binding(3) var base_sampler: sampler;

// The mesh's morph deltas, target-major: target t's position delta of vertex v at
// 3 * (t * vertices + v), the normal deltas the same way from `morphs.info.w` on.
@group(1) @binding(4) var<storage, read> morph_deltas: array<f32>;

struct Morphs {
    // x: targets drawn this frame (0 for a mesh without), y: the mesh's vertex count,
    // z: 1 when normal deltas follow the position deltas, w: where they start.
    info: vec4<u32>,
    // The targets drawn and their weights, four to a vector.
    targets: array<vec4<u32>, 16>,
    weights: array<vec4<f32>, 16>,
};

@group(1) @binding(5) var<uniform> morphs: Morphs;

struct MeshIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    @location(3) joints0: vec4<u32>,
    @location(4) weights0: vec4<f32>,
    @location(5) joints1: vec4<u32>,
    @location(6) weights1: vec4<f32>,
};

struct MeshOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) normal: vec3<f32>,
    @location(1) uv: vec2<f32>,
};

// The delta at float `at` of the morph deltas.
fn morph_delta(at: u32) -> vec3<f32> {
    return vec3<f32>(morph_deltas[at], morph_deltas[at + 1u], morph_deltas[at + 2u]);
}

@vertex
fn vs_mesh(v: MeshIn, @builtin(vertex_index) vertex: u32) -> MeshOut {
    // Morph targets first (glTF: morph, then skin).
    var position = v.position;
    var normal = v.normal;
    let count = morphs.info.x;
    for (var k = 0u; k < count; k++) {
        let t = morphs.targets[k / 4u][k % 4u];
        let w = morphs.weights[k / 4u][k % 4u];
        let at = 3u * (t * morphs.info.y + vertex);
        position += w * morph_delta(at);
        if morphs.info.z != 0u {
            normal += w * morph_delta(morphs.info.w + at);
        }
    }
    let skin = palette[v.joints0.x] * v.weights0.x
        + palette[v.joints0.y] * v.weights0.y
        + palette[v.joints0.z] * v.weights0.z
        + palette[v.joints0.w] * v.weights0.w
        + palette[v.joints1.x] * v.weights1.x
        + palette[v.joints1.y] * v.weights1.y
        + palette[v.joints1.z] * v.weights1.z
        + palette[v.joints1.w] * v.weights1.w;
    var out: MeshOut;
    out.clip = globals.view_proj * (skin * vec4<f32>(position, 1.0));
    out.normal = (skin * vec4<f32>(normal, 0.0)).xyz;
    out.uv = v.uv;
    return out;
}

// The lit, textured colour of a mesh fragment (alpha: the material's times the texture's).
fn shade(in: MeshOut, front: bool) -> vec4<f32> {
    let color = material.base_color * textureSample(base_texture, base_sampler, in.uv);
    var n = normalize(in.normal);
    if !front {
        n = -n;
    }
    // Lambert with ambient; both sides of a thin surface are lit alike.
    let diffuse = abs(dot(n, globals.light_dir.xyz));
    return vec4<f32>(color.rgb * (0.3 + 0.7 * diffuse), color.a);
}

// Opaque materials: no discard, so the rasteriser can test depth before shading.
@fragment
fn fs_mesh_opaque(in: MeshOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    return vec4<f32>(shade(in, front).rgb, 1.0);
}

// Alpha-tested materials (glTF MASK): fragments below the cutoff are discarded.
@fragment
fn fs_mesh_mask(in: MeshOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    let color = shade(in, front);
    if color.a < material.alpha.x {
        discard;
    }
    return vec4<f32>(color.rgb, 1.0);
}

// Blended materials (glTF BLEND): drawn after the others, over them.
@fragment
fn fs_mesh_blend(in: MeshOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    return shade(in, front);
}

// The silhouette pass: every triangle flat white, both faces, no alpha test.
@fragment
fn fs_silhouette(in: MeshOut) -> @location(0) vec4<f32> {
    return vec4<f32>(1.0, 1.0, 1.0, 1.0);
}

struct GroundOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
};

@vertex
fn vs_ground(@builtin(vertex_index) i: u32) -> GroundOut {
    var corners = array<vec2<f32>, 6>(
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, -1.0), vec2<f32>(1.0, 1.0),
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, 1.0), vec2<f32>(-1.0, 1.0),
    );
    let c = corners[i];
    let world = vec3<f32>(
        globals.ground_centre.x + c.x * globals.ground.z,
        globals.ground.x,
        globals.ground_centre.z + c.y * globals.ground.z,
    );
    var out: GroundOut;
    out.clip = globals.view_proj * vec4<f32>(world, 1.0);
    out.world = world;
    return out;
}

@fragment
fn fs_ground(in: GroundOut) -> @location(0) vec4<f32> {
    let p = in.world.xz / globals.ground.y;
    let distance = abs(fract(p - 0.5) - 0.5) / max(fwidth(p), vec2<f32>(1e-6));
    let line = 1.0 - min(min(distance.x, distance.y), 1.0);
    let color = mix(globals.ground_color.rgb, globals.grid_color.rgb, line);
    // Fades into the background towards the edge of the square.
    let r = length(in.world.xz - globals.ground_centre.xz) / globals.ground.z;
    return vec4<f32>(mix(color, globals.background.rgb, smoothstep(0.55, 1.0, r)), 1.0);
}

struct OverlayIn {
    @location(0) pixel: vec2<f32>,
    @location(1) color: vec4<f32>,
};

struct OverlayOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) color: vec4<f32>,
};

@vertex
fn vs_overlay(v: OverlayIn) -> OverlayOut {
    var out: OverlayOut;
    let ndc = vec2<f32>(
        v.pixel.x / globals.viewport.x * 2.0 - 1.0,
        1.0 - v.pixel.y / globals.viewport.y * 2.0,
    );
    out.clip = vec4<f32>(ndc, 0.0, 1.0);
    out.color = v.color;
    return out;
}

@fragment
fn fs_overlay(in: OverlayOut) -> @location(0) vec4<f32> {
    return in.color;
}
