"""``inspect`` with bad inputs: one line on stderr and exit 2, never a traceback; an internal error
is one line saying so and exit 1."""

from __future__ import annotations

from pathlib import Path

import pytest

from scene_sim_ros.cli import main as cli


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    status = cli.main(list(argv))
    err = capsys.readouterr().err
    return status, err


@pytest.mark.parametrize('name', ['a' * 5000 + '.urdf', 'a' * 5000, 'no\x00such.urdf'])
def test_names_the_file_system_refuses(name: str, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    status, err = run(capsys, 'inspect', str(tmp_path / name))
    assert status == 2
    assert err.count('\n') == 1 and 'Traceback' not in err


def test_undecodable_scene(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / 'bad.urdf'
    path.write_bytes(b'<robot name="r"><link name="\xff"/></robot>')
    status, err = run(capsys, 'inspect', str(path))
    assert (status, err) == (2, f'{path}:1: invalid utf-8 byte(s) 0xff at column 29 (byte offset '
                                '28); save the file as utf-8 or declare its encoding\n')


def test_internal_error_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / 'r.urdf'
    path.write_text('<robot name="r"><link name="a"/></robot>')

    def broken(*_: object, **__: object) -> None:
        raise RuntimeError('simulated bug')

    monkeypatch.setattr('scene_sim_ros.formats.load_scene', broken)
    monkeypatch.delenv('SCENE_SIM_ROS_DEBUG', raising=False)
    status, err = run(capsys, 'inspect', str(path))
    assert status == 1
    assert err.startswith('internal error (a bug in scene-sim-ros, please report it): '
                          'RuntimeError: simulated bug') and err.count('\n') == 1
