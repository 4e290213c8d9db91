"""``billar sim`` (physics/cli.py): layouts, JSON output equal to simulate(), readable table,
exit status 2 with a one-line message on bad arguments."""

import json
import subprocess
import sys

import pytest

from physics import Shot, get_table, simulate
from server.cli import main


def run(capsys, *argv):
    rc = main(["sim", *argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_rack_14_1_json_equals_simulate(capsys):
    rc, out, err = run(capsys, "--table", "pool-9ft", "--rack", "14.1", "--phi", "0.5", "--speed", "8", "--a", "0.1", "--json")
    assert rc == 0 and err == ""
    got = json.loads(out)
    t = get_table("pool-9ft")
    balls = {0: t.head_spot, **{k + 1: p for k, p in enumerate(t.rack_sites())}}
    want = simulate(t, balls, Shot(0, 0.5, 8.0, a=0.1)).to_json()
    assert got == json.loads(json.dumps(want))
    assert got["events"][0]["kind"] == "strike" and got["events"][0]["balls"] == [0]
    assert set(got["final"]) == {str(b) for b in range(16)}
    assert set(got["events"][1]["states"]["0"]) == {"state", "r", "v", "w"}


def test_carom_break_layout_and_ball_override(capsys):
    rc, out, _ = run(capsys, "--table", "carom", "--layout", "carom-break", "--ball", "2:2.0,0.9", "--phi", "75", "--speed", "3", "--json")
    assert rc == 0
    got = json.loads(out)
    t = get_table("carom")
    assert got["initial"]["0"] == list(t.starting_spots["right"])
    assert got["initial"]["1"] == list(t.bottom_spot)
    assert got["initial"]["2"] == [2.0, 0.9]


def test_cue_ball_option(capsys):
    rc, out, _ = run(capsys, "--table", "carom", "--layout", "carom-break", "--cue-ball", "1", "--phi", "0", "--speed", "2", "--json")
    assert rc == 0
    assert json.loads(out)["events"][0]["balls"] == [1]


def test_readable_table(capsys):
    rc, out, _ = run(capsys, "--table", "pool-9ft", "--ball", "0:0.6,0.6", "--ball", "3:1.2,0.6", "--phi", "0", "--speed", "2")
    assert rc == 0
    lines = out.splitlines()
    assert lines[0].startswith("table pool-9ft: 2 balls")
    assert any("strike" in ln for ln in lines) and any("ball_ball" in ln and "0,3" in ln for ln in lines)
    assert "final layout:" in lines
    final = lines[lines.index("final layout:") + 2 :]
    assert [ln.split()[0] for ln in final] == ["0", "3"]


@pytest.mark.parametrize(
    "argv, start",
    [
        (["--table", "carom", "--rack", "14.1", "--phi", "0", "--speed", "3"], "billar sim: error: rack:"),
        (["--table", "pool-9ft", "--layout", "carom-break", "--phi", "0", "--speed", "3"], "billar sim: error: layout:"),
        (["--table", "pool-9ft", "--ball", "0:1,0.5", "--phi", "0", "--speed", "30"], "billar sim: error: V0:"),
        (["--table", "pool-9ft", "--ball", "0:1,0.5", "--phi", "nan", "--speed", "3"], "billar sim: error: phi_deg:"),
        (["--table", "pool-9ft", "--ball", "0:1,0.5", "--phi", "0", "--speed", "3", "--a", "0.6"], "billar sim: error: a:"),
        (["--table", "pool-9ft", "--ball", "0:1,0.5", "--phi", "0", "--speed", "3", "--theta", "80"], "billar sim: error: theta_deg:"),
        (["--table", "pool-9ft", "--ball", "1:1,0.5", "--phi", "0", "--speed", "3"], "billar sim: error: cue_ball:"),
        (["--table", "pool-9ft", "--ball", "0:1,0.5", "--ball", "1:1.01,0.5", "--phi", "0", "--speed", "3"], "billar sim: error: balls:"),
        (["--table", "pool-9ft", "--phi", "0", "--speed", "3"], "billar sim: error: balls:"),
    ],
)
def test_bad_values_exit_2_with_one_line(capsys, argv, start):
    rc, out, err = run(capsys, *argv)
    assert rc == 2 and out == ""
    assert err.startswith(start) and err.count("\n") == 1


@pytest.mark.parametrize(
    "argv",
    [
        ["--table", "snooker", "--phi", "0", "--speed", "3"],
        ["--table", "pool-9ft", "--ball", "0:1;0.5", "--phi", "0", "--speed", "3"],
        ["--table", "pool-9ft", "--rack", "14.1", "--layout", "carom-break", "--phi", "0", "--speed", "3"],
        ["--table", "pool-9ft", "--rack", "14.1", "--speed", "3"],
        ["--table", "pool-9ft", "--rack", "14.1", "--phi", "0", "--speed", "3", "--cushion-model", "stronge"],
    ],
)
def test_bad_arguments_exit_2_with_one_line(capsys, argv):
    with pytest.raises(SystemExit) as exc:
        main(["sim", *argv])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("billar sim: error:") and err.count("\n") == 1


def test_stroke_flags_in_both_outputs(capsys):
    argv = ["--table", "pool-9ft", "--ball", "0:1.0,0.6", "--ball", "1:1.05815,0.6", "--phi", "0", "--speed", "2"]
    rc, out, _ = run(capsys, *argv)
    assert rc == 0
    assert out.splitlines()[0] == "table pool-9ft: 2 balls, 14 events; stroke flags: double_hit, push"
    rc, out, _ = run(capsys, *argv, "--json")
    assert json.loads(out)["flags"] == ["double_hit", "push"]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--table", "carom", "--ball", "20:1,0.5", "--phi", "0", "--speed", "3"],
         "billar sim: error: balls: ball ids on the carom table are 0..2 (0 white, 1 yellow, 2 red), got 20\n"),
        (["--table", "carom", "--layout", "carom-break", "--ball", "5:1,0.5", "--phi", "0", "--speed", "3"],
         "billar sim: error: balls: ball ids on the carom table are 0..2 (0 white, 1 yellow, 2 red), got 5\n"),
        (["--table", "carom", "--layout", "carom-break", "--cue-ball", "7", "--phi", "0", "--speed", "3"],
         "billar sim: error: cue_ball: ball ids on the carom table are 0..2 (0 white, 1 yellow, 2 red), got 7\n"),
        (["--table", "pool-7ft", "--ball", "16:1,0.5", "--phi", "0", "--speed", "3"],
         "billar sim: error: balls: ball ids on the pool-7ft table are 0..15 (0 the cue ball, 1-15 object balls), got 16\n"),
        (["--table", "pool-9ft", "--ball", "0:1,0.5", "--phi", "1e300", "--speed", "3"],
         "billar sim: error: phi_deg: --phi must lie within +-1e+06 degrees (angles wrap every 360), got 1e+300\n"),
        (["--table", "pool-9ft", "--ball", "0:1,0.5", "--phi=-1000000.5", "--speed", "3"],
         "billar sim: error: phi_deg: --phi must lie within +-1e+06 degrees (angles wrap every 360), got -1000000.5\n"),
        (["--table", "pool-9ft", "--ball", "0:1,0.5", "--phi=-inf", "--speed", "3"],
         "billar sim: error: phi_deg: --phi must be a finite angle in degrees, got -inf\n"),
    ],
)
def test_ball_ids_of_the_table_and_phi_range(capsys, argv, message):
    rc, out, err = run(capsys, *argv)
    assert (rc, out, err) == (2, "", message)


def test_phi_wraps_every_360_degrees(capsys):
    finals = []
    for phi in ("30", "390", "-330", "999750"):  # 999750 = 30 + 2777 turns, within the 1e6 limit
        rc, out, _ = run(capsys, "--table", "carom", "--layout", "carom-break", "--phi", phi, "--speed", "3", "--json")
        assert rc == 0
        finals.append(json.loads(out)["final"])
    for f in finals[1:]:
        for b in ("0", "1", "2"):
            assert f[b]["r"] == pytest.approx(finals[0][b]["r"], abs=1e-6)
    assert finals[0]["0"]["r"] != json.loads(json.dumps(get_table("carom").starting_spots["right"]))


def test_console_script_runs():
    out = subprocess.run(
        [sys.executable, "-m", "server.cli", "sim", "--table", "carom", "--layout", "carom-break", "--phi", "80", "--speed", "4", "--json"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0
    assert json.loads(out.stdout)["table"] == "carom"
