"""Remote PROTOs resolved as Webots does, against a real HTTP server on localhost (no internet):
nested EXTERNPROTO by URL and by relative path, relative Mesh and ImageTexture urls, a url
forwarded by IS, a JavaScript template; the user cache reused offline; interrupted downloads;
a Webots installation (WEBOTS_HOME); the error that names every place looked."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from scene_sim_ros.errors import SceneLoadError
from scene_sim_ros.formats.webots import load
from support.webots_tree import CUBE_OBJ, serve_rover_tree, write, write_rover_world


@pytest.fixture
def server(tmp_path):
    """The PROTO tree, served from localhost; stopped at the end of the test."""
    served = serve_rover_tree(tmp_path / 'srv')
    yield served
    served.stop()


@pytest.fixture
def world(tmp_path, server):
    return write_rover_world(tmp_path / 'project', server.url)


def _parameters(tmp_path: Path, download: bool = True, **extra: str) -> dict[str, str]:
    return {'webots.cache_dir': str(tmp_path / 'cache'),
            'webots.download': 'true' if download else 'false', **extra}


def test_remote_proto_tree_downloads_and_resolves_each_url_against_its_own_file(
        tmp_path, server, world):
    scene = load(world, parameters=_parameters(tmp_path))
    r1, r2 = scene.entity('r1'), scene.entity('r2')
    assert scene.metadata['webots_protos'] == {
        'Rover': ('downloaded', f'{server.url}/lib/protos/Rover.proto'),
        'Wheel': ('downloaded', f'{server.url}/lib/protos/Wheel.proto'),
        'Scanner': ('downloaded', f'{server.url}/parts/protos/Scanner.proto')}
    body = r1.root.visuals[0]
    assert body.shape.kind == 'mesh' and body.shape.name == 'body.obj'
    assert np.allclose(body.shape.vertices.max(axis=0), 0.1)
    assert body.texture is not None and body.texture.read_bytes().startswith(b'\x89PNG')
    assert body.texture.is_relative_to(tmp_path / 'cache')
    assert r1.root.collisions[0].shape.name == 'body.obj'
    # the template doubled the radius; the nested PROTOs come with their joint and sensor
    wheel = r1.link('wheel')
    assert wheel.collisions[0].shape.radius == pytest.approx(0.1)
    assert r1.joint('wheel motor').type == 'revolute'
    assert r1.sensor('scanner') is not None
    scanner_meshes = [v.shape.name for link in r1.links for v in link.visuals
                      if v.shape.kind == 'mesh']
    assert 'scanner.stl' in scanner_meshes
    # a url given by the world through IS resolves against the world, not the PROTO
    assert r2.root.visuals[0].shape.name == 'mine.obj'
    assert np.allclose(r2.root.visuals[0].shape.vertices.max(axis=0), 0.3)
    assert sorted(set(server.requests)) == [
        '/lib/meshes/body.obj', '/lib/protos/Rover.proto', '/lib/protos/Wheel.proto',
        '/lib/protos/textures/skin.png', '/parts/meshes/scanner.stl',
        '/parts/protos/Scanner.proto']


def test_second_load_comes_from_the_cache_without_a_request_and_offline(
        tmp_path, server, world):
    first = load(world, parameters=_parameters(tmp_path))
    asked = len(server.requests)
    again = load(world, parameters=_parameters(tmp_path))
    assert len(server.requests) == asked  # nothing asked the second time
    assert {s for s, _ in again.metadata['webots_protos'].values()} == {'cache'}
    server.stop()
    offline = load(world, parameters=_parameters(tmp_path, download=False))
    assert offline.entity_names() == first.entity_names()
    assert offline.entity('r1').root.visuals[0].texture is not None
    assert offline.metadata['webots_downloads'] == []


def test_offline_without_the_proto_names_it_every_place_looked_and_the_remedies(
        tmp_path, server, world):
    with pytest.raises(SceneLoadError) as err:
        load(world, parameters=_parameters(tmp_path, download=False))
    message = str(err.value)
    assert message.startswith(f'{world}:4: PROTO Rover is not available locally')
    assert f'{world.parent}/Rover.proto' in message  # the world's folder
    assert str(tmp_path / 'project/protos/Rover.proto') in message  # ../protos
    assert str(tmp_path / 'cache') in message
    assert 'downloads are off' in message
    for remedy in ('WEBOTS_HOME', 'webots.proto_path', 'webots.download=true',
                   'scene-sim-ros fetch'):
        assert remedy in message
    assert server.requests == []


def test_a_download_cut_short_is_never_used_and_leaves_no_file(tmp_path, server, world):
    server.truncate['/lib/protos/Rover.proto'] = 40
    with pytest.raises(SceneLoadError) as err:
        load(world, parameters=_parameters(tmp_path))
    assert 'PROTO Rover is not available locally' in str(err.value)
    assert 'download' in str(err.value)
    cached = [p for p in (tmp_path / 'cache').rglob('*') if p.is_file()]
    assert not any(p.name.startswith('Rover.proto') for p in cached)  # no half file, no .part
    del server.truncate['/lib/protos/Rover.proto']
    scene = load(world, parameters=_parameters(tmp_path))
    assert scene.metadata['webots_protos']['Rover'][0] == 'downloaded'


def test_gzip_encoded_files_are_stored_decoded(tmp_path, server, world):
    server.gzipped.update({'/lib/protos/Rover.proto', '/lib/meshes/body.obj'})
    scene = load(world, parameters=_parameters(tmp_path))
    assert scene.entity('r1').root.visuals[0].shape.name == 'body.obj'
    (cached,) = (tmp_path / 'cache').rglob('Rover.proto')
    assert cached.read_text().startswith('#VRML_SIM')


def test_a_file_over_the_size_limit_is_refused(tmp_path, server, world):
    with pytest.raises(SceneLoadError) as err:
        load(world, parameters=_parameters(tmp_path, **{'webots.download_max_mib': '0.0001'}))
    assert 'more than the limit of 104 bytes' in str(err.value)
    assert not list((tmp_path / 'cache').rglob('Rover.proto*'))


FAKE_ROBOT = """#VRML_SIM R2023b utf8
EXTERNPROTO "webots://projects/devices/acme/protos/AcmeSensor.proto"
PROTO AcmeBot [ field SFString name "acme" ]
{
  Robot {
    name IS name
    children [ AcmeSensor { } Shape { geometry Mesh { url "../meshes/hull.obj" } } ]
  }
}
"""
FAKE_SENSOR = """#VRML_SIM R2023b utf8
PROTO AcmeSensor [ ]
{
  GPS { name "acme gps" }
}
"""


@pytest.fixture
def webots_home(tmp_path, monkeypatch):
    home = tmp_path / 'webots'
    write(home / 'resources/version.txt', 'R2023b\n')
    write(home / 'projects/robots/acme/protos/AcmeBot.proto', FAKE_ROBOT)
    write(home / 'projects/robots/acme/meshes/hull.obj', CUBE_OBJ)
    write(home / 'projects/devices/acme/protos/AcmeSensor.proto', FAKE_SENSOR)
    monkeypatch.delenv('SCENE_SIM_ROS_WEBOTS_HOME', raising=False)
    monkeypatch.setenv('WEBOTS_HOME', str(home))
    return home


@pytest.mark.parametrize('url', [
    'webots://projects/robots/acme/protos/AcmeBot.proto',
    'https://raw.githubusercontent.com/cyberbotics/webots/R2023b/projects/robots/acme/protos/'
    'AcmeBot.proto'])
def test_webots_urls_map_onto_the_installation(tmp_path, webots_home, url):
    world = write(tmp_path / 'w/worlds/a.wbt', f'#VRML_SIM R2023b utf8\nEXTERNPROTO "{url}"\n'
                   'AcmeBot { }\n')
    scene = load(world, parameters=_parameters(tmp_path, download=False))
    robot = scene.entity('acme')
    assert robot.sensor('acme gps').kind == 'gps'
    assert robot.root.visuals[0].shape.name == 'hull.obj'
    sources = scene.metadata['webots_protos']
    assert sources['AcmeBot'] == ('installation', str(
        webots_home.resolve() / 'projects/robots/acme/protos/AcmeBot.proto'))
    assert sources['AcmeSensor'][0] == 'installation'
    assert not any('asks for Webots' in w for w in scene.warnings)


def test_another_webots_version_than_installed_is_a_warning(tmp_path, webots_home):
    url = ('https://raw.githubusercontent.com/cyberbotics/webots/develop/projects/robots/acme/'
           'protos/AcmeBot.proto')
    world = write(tmp_path / 'w/worlds/a.wbt', f'#VRML_SIM R2025a utf8\nEXTERNPROTO "{url}"\n'
                   'AcmeBot { }\n')
    scene = load(world, parameters=_parameters(tmp_path, download=False))
    assert scene.entity('acme')
    assert any('asks for Webots develop files; using the installed R2023b' in w
               for w in scene.warnings)


def test_externproto_outside_the_worlds_tree_is_refused_without_showing_it(tmp_path):
    secret = write(tmp_path / 'elsewhere/Secret.proto', 'PROTO Secret [ ] { Solid { } }\n'
                    '# top secret content\n')
    world = write(tmp_path / 'a/b/worlds/w.wbt',
                   f'#VRML_SIM R2023b utf8\nEXTERNPROTO "{secret}"\nSecret {{ }}\n')
    with pytest.raises(SceneLoadError) as err:
        load(world, parameters=_parameters(tmp_path, download=False))
    message = str(err.value)
    assert f'{world}:2:' in message and "outside the world's tree" in message
    assert 'webots.proto_path' in message and 'top secret' not in message
    # allowed once its folder is on the PROTO path
    scene = load(world, parameters=_parameters(
        tmp_path, download=False, **{'webots.proto_path': str(secret.parent)}))
    assert scene.metadata['webots_protos']['Secret'][0] == 'local'


def test_mesh_outside_the_worlds_tree_is_a_warning_and_left_out(tmp_path):
    write(tmp_path / 'elsewhere/m.obj', CUBE_OBJ)
    world = write(tmp_path / 'a/b/worlds/w.wbt', '#VRML_SIM R2023b utf8\nSolid { children [ '
                   f'Shape {{ geometry Mesh {{ url "{tmp_path}/elsewhere/m.obj" }} }} ] }}\n')
    scene = load(world, parameters=_parameters(tmp_path, download=False))
    assert any("outside the world's tree" in w for w in scene.warnings)
    assert all(not e.links[0].visuals for e in scene.entities)


def test_a_remote_proto_may_not_name_a_local_file(tmp_path, server):
    write(tmp_path / 'srv/evil/protos/Evil.proto',
           f'#VRML_SIM R2023b utf8\nEXTERNPROTO "{tmp_path}/project/protos/Mine.proto"\n'
           'PROTO Evil [ ] { Robot { children [ Mine { } ] } }\n')
    write(tmp_path / 'project/protos/Mine.proto', 'PROTO Mine [ ] { Solid { } }\n')
    world = write(tmp_path / 'project/worlds/w.wbt', '#VRML_SIM R2023b utf8\n'
                   f'EXTERNPROTO "{server.url}/evil/protos/Evil.proto"\nEvil {{ }}\n')
    with pytest.raises(SceneLoadError) as err:
        load(world, parameters=_parameters(tmp_path))
    assert 'names a local file from the remote file' in str(err.value)


def test_unreadable_mesh_is_one_warning_naming_it(tmp_path):
    write(tmp_path / 'w/meshes/broken.stl', 'solid nothing here\n')
    world = write(tmp_path / 'w/worlds/w.wbt', '#VRML_SIM R2023b utf8\nSolid { children [ '
                   'Shape { geometry Mesh { url "../meshes/broken.stl" } } ] }\n')
    scene = load(world, parameters=_parameters(tmp_path, download=False))
    (warning,) = [w for w in scene.warnings if 'broken.stl' in w]
    assert 'holds no triangles' in warning and warning.startswith(f'{world}:2:')


def test_fetch_fills_the_cache_then_inspect_runs_offline(tmp_path, server, world, capsys):
    from scene_sim_ros.cli.main import main
    cache = f'webots.cache_dir={tmp_path / "cache"}'
    assert main(['fetch', str(world), '--param', cache]) == 0
    out = capsys.readouterr().out
    assert f'Rover: downloaded {server.url}/lib/protos/Rover.proto' in out
    assert f'downloaded {server.url}/parts/meshes/scanner.stl' in out
    server.stop()
    assert main(['inspect', str(world), '--offline', '--param', cache]) == 0
    out = capsys.readouterr().out
    assert f'PROTO Rover: cache ({server.url}/lib/protos/Rover.proto)' in out
    assert main(['inspect', str(world), '--offline', '--param',
                 f'webots.cache_dir={tmp_path / "empty"}']) == 2
    err = capsys.readouterr().err
    assert 'PROTO Rover is not available locally' in err and 'to fix:' in err


def test_fetch_says_which_world_is_incomplete(tmp_path, server, world, capsys):
    from scene_sim_ros.cli.main import main
    server.stop()
    assert main(['fetch', str(world), '--param', f'webots.cache_dir={tmp_path / "c"}']) == 1
    out = capsys.readouterr().out
    assert f'{world}: incomplete' in out and 'cannot reach 127.0.0.1' in out


def test_fetch_with_an_installation_fills_the_cache_for_a_machine_without(
        tmp_path, webots_home, monkeypatch, capsys):
    from scene_sim_ros.cli.main import main
    url = ('https://raw.githubusercontent.com/cyberbotics/webots/R2023b/projects/robots/acme/'
           'protos/AcmeBot.proto')
    world = write(tmp_path / 'w/worlds/a.wbt', f'#VRML_SIM R2023b utf8\nEXTERNPROTO "{url}"\n'
                   'AcmeBot { }\n')
    cache = f'webots.cache_dir={tmp_path / "cache"}'
    assert main(['fetch', str(world), '--param', cache]) == 0
    assert f'cached {url}' in capsys.readouterr().out
    monkeypatch.delenv('WEBOTS_HOME')
    scene = load(world, parameters=_parameters(tmp_path, download=False))
    assert {s for s, _ in scene.metadata['webots_protos'].values()} == {'cache'}
    assert scene.entity('acme').sensor('acme gps').kind == 'gps'
    assert scene.entity('acme').root.visuals[0].shape.name == 'hull.obj'


def test_transform_scale_scales_meshes_boxes_and_the_poses_inside(tmp_path):
    write(tmp_path / 'w/meshes/cube.obj', CUBE_OBJ)  # a 0.2 m cube around its origin
    world = write(tmp_path / 'w/worlds/w.wbt', """#VRML_SIM R2023b utf8
Solid {
  children [
    Transform {
      scale 0.5 0.5 2
      children [
        Pose { translation 0.2 0 0.1 children [ Shape { geometry Mesh { url "../meshes/cube.obj" } } ] }
        Shape { geometry Sphere { radius 1 } }
      ]
    }
  ]
  boundingObject Transform { scale 2 2 2 children [ Box { size 0.1 0.2 0.3 } ] }
  physics Physics { }
}
""")
    scene = load(world, parameters=_parameters(tmp_path, download=False))
    link = scene.entities[0].root
    (mesh,) = [v for v in link.visuals if v.shape.kind == 'mesh']
    assert np.allclose(mesh.shape.vertices.max(axis=0), (0.05, 0.05, 0.2))
    assert mesh.pose.position == pytest.approx((0.1, 0.0, 0.2))
    assert [v.shape.kind for v in link.visuals] == ['mesh']  # the sphere cannot stretch
    assert any('a sphere cannot take the scale' in w for w in scene.warnings)
    assert link.collisions[0].shape.size == pytest.approx((0.2, 0.4, 0.6))


def test_a_parsed_mesh_is_kept_by_content_and_reparsed_when_the_file_changes(tmp_path,
                                                                              monkeypatch):
    from scene_sim_ros.formats import mesh_files
    monkeypatch.setenv('SCENE_SIM_ROS_CACHE_DIR', str(tmp_path / 'cache'))
    first = write(tmp_path / 'a/cube.obj', CUBE_OBJ)
    copy = write(tmp_path / 'b/cube.obj', CUBE_OBJ)
    mesh = mesh_files.read_mesh_file(first)
    (stored,) = (tmp_path / 'cache/parsed-meshes').iterdir()
    parses = []
    monkeypatch.setattr(mesh_files, '_parse', lambda *a: parses.append(a) or mesh)
    assert mesh_files.read_mesh_file(copy) == mesh  # same bytes elsewhere: no parse
    assert parses == []
    write(copy, CUBE_OBJ.replace('.1', '.2'))
    mesh_files.read_mesh_file(copy)
    assert len(parses) == 1  # new content: parsed again
    stored.write_bytes(b'half a file')  # a crashed writer's leftovers are parsed over
    mesh_files._read.cache_clear()
    assert mesh_files.read_mesh_file(first) == mesh and len(parses) == 2


@pytest.mark.parametrize('value', ['soon', '0', '-3', 'nan'])
def test_a_bad_download_setting_is_an_error_naming_it(tmp_path, world, value):
    with pytest.raises(SceneLoadError, match=f"webots.download_timeout='{value}': expected a "
                                             'positive number'):
        load(world, parameters=_parameters(tmp_path, **{'webots.download_timeout': value}))


@pytest.mark.parametrize('url', ['https://exa mple.invalid/R.proto', 'https://xn--a.invalid/R.proto',
                                 f"https://{'a' * 300}.invalid/R.proto", 'https://[x/R.proto'])
def test_an_externproto_url_that_is_not_a_valid_url_is_a_missing_proto(tmp_path, url):
    """Bad URLs found by the fuzz harness (a space, a host IDNA refuses, an over-long label,
    an unclosed IPv6 host that urlsplit refuses):
    the PROTO is missing, as for any URL that cannot be had, never a raw httpx/idna error."""
    world = write(tmp_path / 'worlds/w.wbt', f'#VRML_SIM R2023b utf8\nEXTERNPROTO "{url}"\nR {{ }}\n')
    scene = load(world, parameters=_parameters(tmp_path, download=True))
    assert scene.warnings == (f'{world}:3: PROTO R is not available locally ({url}); left out',)


def test_a_node_name_the_file_system_refuses_is_an_unknown_node(tmp_path):
    name = 'P' * 300   # longer than a file name may be (255 bytes): no PROTO file can have it
    world = write(tmp_path / 'worlds/w.wbt', f'#VRML_SIM R2023b utf8\n{name} {{ }}\n')
    scene = load(world, parameters=_parameters(tmp_path, download=False))
    assert scene.warnings == (f'{world}:2: unknown node {name}; skipped',)
