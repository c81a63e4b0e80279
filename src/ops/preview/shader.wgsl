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
    // xyz: the camera's position.
    eye: vec4<f32>,
};

@group(0) @binding(0) var<uniform> globals: Globals;

struct Material {
    base_color: vec4<f32>,
    // x: alpha cutoff (MASK: fragments below are discarded).
    alpha: vec4<f32>,
    // A toon (MToon) material's parameters; x of `toon` is 0 for a plain material.
    // toon: x on, y shading shift, z shading toony, w GI equalisation.
    toon: vec4<f32>,
    // rgb: shade colour.
    shade: vec4<f32>,
    // rgb: rim colour, w: fresnel power.
    rim: vec4<f32>,
    // x: rim lift, y: rim lighting mix.
    rim_more: vec4<f32>,
    // rgb: outline colour, w: its lighting mix.
    outline: vec4<f32>,
    // x: outline width, y: 1 world (metres), 2 screen (fraction of the picture's height).
    outline_width: vec4<f32>,
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
    @location(2) world: vec3<f32>,
};

// The delta at float `at` of the morph deltas.
fn morph_delta(at: u32) -> vec3<f32> {
    return vec3<f32>(morph_deltas[at], morph_deltas[at + 1u], morph_deltas[at + 2u]);
}

// The vertex skinned and morphed, in world space (clip not set).
fn skinned(v: MeshIn, vertex: u32) -> MeshOut {
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
    out.world = (skin * vec4<f32>(position, 1.0)).xyz;
    out.normal = (skin * vec4<f32>(normal, 0.0)).xyz;
    out.uv = v.uv;
    return out;
}

@vertex
fn vs_mesh(v: MeshIn, @builtin(vertex_index) vertex: u32) -> MeshOut {
    var out = skinned(v, vertex);
    out.clip = globals.view_proj * vec4<f32>(out.world, 1.0);
    return out;
}

// MToon's outline: the surface pushed out along its normal, by a width in metres (world) or
// as a fraction of the picture's height (screen); drawn with front faces culled, so only the
// rim of the hull shows around the body.
@vertex
fn vs_outline(v: MeshIn, @builtin(vertex_index) vertex: u32) -> MeshOut {
    var out = skinned(v, vertex);
    let n = normalize(out.normal);
    let width = material.outline_width.x;
    if material.outline_width.y < 1.5 {
        out.world = out.world + n * width;
        out.clip = globals.view_proj * vec4<f32>(out.world, 1.0);
    } else {
        let clip = globals.view_proj * vec4<f32>(out.world, 1.0);
        let towards = globals.view_proj * vec4<f32>(out.world + n * 0.01, 1.0);
        var d = towards.xy / max(towards.w, 1e-6) - clip.xy / max(clip.w, 1e-6);
        let aspect = globals.viewport.x / max(globals.viewport.y, 1.0);
        d.x = d.x * aspect;
        let l = length(d);
        if l > 1e-8 {
            d = d / l;
        }
        d.x = d.x / aspect;
        // NDC spans 2 picture heights: width · 2 in NDC, times w to undo the division.
        out.clip = vec4<f32>(clip.xy + d * width * 2.0 * clip.w, clip.zw);
    }
    return out;
}

@fragment
fn fs_outline(in: MeshOut) -> @location(0) vec4<f32> {
    let lit = 0.3 + 0.7 * max(dot(normalize(in.normal), toon_light(in.world)), 0.0);
    let color = material.outline.rgb * mix(1.0, lit, material.outline.w);
    return vec4<f32>(color, 1.0);
}

// The lit, textured colour of a mesh fragment (alpha: the material's times the texture's).
fn shade(in: MeshOut, front: bool) -> vec4<f32> {
    let color = material.base_color * textureSample(base_texture, base_sampler, in.uv);
    var n = normalize(in.normal);
    if !front {
        n = -n;
    }
    if material.toon.x > 0.5 {
        return toon(in, n, color);
    }
    // Lambert with ambient; both sides of a thin surface are lit alike.
    let diffuse = abs(dot(n, globals.light_dir.xyz));
    return vec4<f32>(color.rgb * (0.3 + 0.7 * diffuse), color.a);
}

// The light toon shading splits lit from shade by: from above the camera, so a character
// shows the same shading whichever way it faces (Lambert's two-sided lighting hides that; a
// toon boundary does not).
fn toon_light(world: vec3<f32>) -> vec3<f32> {
    let towards_eye = normalize(globals.eye.xyz - world);
    return normalize(towards_eye + vec3<f32>(0.0, 0.8, 0.0));
}

// MToon 1.0's shading (VRMC_materials_mtoon): lit and shade colours split where
// n·l + shading shift crosses the band that toony narrows, GI evened out by its factor, and the
// parametric rim (fresnel power, lift) mixed towards the light by its lighting mix.
fn toon(in: MeshOut, n: vec3<f32>, lit: vec4<f32>) -> vec4<f32> {
    let shift = material.toon.y;
    let toony = material.toon.z;
    let nl = dot(n, toon_light(in.world));
    let shading = smoothstep(-1.0 + toony, 1.0 - toony + 1e-4, nl + shift);
    // The shade multiply texture taken as the main texture, its usual value.
    let shade = material.shade.rgb * textureSample(base_texture, base_sampler, in.uv).rgb;
    var color = mix(shade, lit.rgb, shading);
    // Ambient light, evened out over the surface by GI equalisation.
    let ambient = 0.25 * mix(0.5 + 0.5 * n.y, 1.0, material.toon.w);
    color = color * (0.85 + ambient);
    let view = normalize(globals.eye.xyz - in.world);
    let fresnel = pow(clamp(1.0 - dot(n, view) + material.rim_more.x, 0.0, 1.0), max(material.rim.w, 1e-4));
    let rim = material.rim.rgb * fresnel * mix(1.0, max(shading, 0.0), material.rim_more.y);
    return vec4<f32>(color + rim, lit.a);
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
