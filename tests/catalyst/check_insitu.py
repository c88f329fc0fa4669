#!/usr/bin/python3
"""Checks what the in-situ pipelines of inputs/catalyst/ wrote during an insitu_driver run.

  check_insitu.py extract OUT   particles_NNNNNN.pvtp for exactly the expected steps; the point count
                                of every step, summed over the per-rank .vtp pieces (parsed here from
                                the XML headers) and read back with ParaView's own reader, equals the
                                particle count insitu_driver recorded in OUT/expected.txt; all arrays
                                are there; ids are unique; at the last step every particle's values
                                equal the run's dump (OUT/last_step_rank*.csv).
  check_insitu.py render OUT    velocity_NNNNNN.png for exactly the expected steps; each is a valid
                                PNG of the requested size that is not blank (more than one colour,
                                particles covering part of the picture); decoded here with zlib.

Run with Debian's /usr/bin/python3 (python3-paraview). Reading VTK XML back with ParaView 5.11 on a
current Debian 12 needs the expat shim in LD_PRELOAD (docs/insitu.md); the ctest entries set it.
Exit code 0 pass, 1 fail.
"""
import glob
import os
import re
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

FAILURES = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        FAILURES.append(what)
    return ok


def read_expected(out):
    ranks, steps = 0, {}
    with open(os.path.join(out, "expected.txt")) as f:
        for line in f:
            words = line.split()
            if words[:1] == ["ranks"]:
                ranks = int(words[1])
            elif words[:1] == ["step"]:
                steps[int(words[1])] = int(words[3])
    return ranks, steps


def files_by_step(folder, prefix, suffix):
    found = {}
    for path in glob.glob(os.path.join(folder, prefix + "*" + suffix)):
        m = re.fullmatch(re.escape(prefix) + r"(\d+)" + re.escape(suffix), os.path.basename(path))
        if m:
            found[int(m.group(1))] = path
    return found


def shim_loaded():
    try:
        with open("/proc/self/maps") as f:
            return "libexpat_noreparse" in f.read()
    except OSError:
        return False


# ---------------------------------------------------------------------------------------- extract
def piece_points(path):
    """NumberOfPoints of a .vtp piece, from its XML header (the raw appended data is not parsed)."""
    with open(path, "rb") as f:
        head = f.read(1 << 16)
    head = head.split(b"<AppendedData")[0]
    counts = re.findall(rb'<Piece\b[^>]*\bNumberOfPoints="(\d+)"', head)
    if not counts:
        raise ValueError("no <Piece NumberOfPoints=...> in " + path)
    return sum(int(c) for c in counts)


def check_pvtp_headers(path, ranks, expected_points):
    root = ET.parse(path).getroot()
    ppoly = root.find("PPolyData")
    if not check(root.get("type") == "PPolyData" and ppoly is not None, f"{path}: a PPolyData file"):
        return
    arrays = {a.get("Name"): int(a.get("NumberOfComponents", "1")) for a in ppoly.iter("PDataArray")
              if a.get("Name")}
    for name, comps in (("velocity", 3), ("affine_velocity", 9), ("mass", 1), ("id", 1), ("material", 1)):
        check(arrays.get(name) == comps, f"{os.path.basename(path)}: point array {name} with {comps} components "
                                         f"(found {arrays.get(name)})")
    pieces = [p.get("Source") for p in ppoly.findall("Piece")]
    check(len(pieces) == ranks, f"{os.path.basename(path)}: one piece per rank ({len(pieces)} pieces, {ranks} ranks)")
    total = 0
    for src in pieces:
        piece = os.path.join(os.path.dirname(path), src)
        if check(os.path.isfile(piece), f"piece {src} exists"):
            total += piece_points(piece)
    check(total == expected_points, f"{os.path.basename(path)}: {total} points in the .vtp headers, "
                                    f"{expected_points} particles in the run")


def check_paraview_readback(path, expected_points):
    from vtkmodules.vtkCommonCore import vtkFileOutputWindow, vtkOutputWindow
    from vtkmodules.vtkIOXML import vtkXMLPPolyDataReader

    # Collect VTK's error messages (the expat problem shows up as "Error parsing XML").
    log = path + ".readback.log"
    if os.path.exists(log):
        os.remove(log)
    window = vtkFileOutputWindow()
    window.SetFileName(log)
    window.SetFlush(1)
    vtkOutputWindow.SetInstance(window)
    reader = vtkXMLPPolyDataReader()
    reader.SetFileName(path)
    reader.Update()
    data = reader.GetOutput()
    name = os.path.basename(path)
    errors = ""
    if os.path.exists(log):
        with open(log) as f:
            errors = f.read()
    check("ERROR" not in errors.upper(), f"{name}: ParaView's reader reports no errors"
                                         + ("" if "ERROR" not in errors.upper() else ":\n" + errors[:2000]))
    check(data.GetNumberOfPoints() == expected_points,
          f"{name}: ParaView's reader gives {data.GetNumberOfPoints()} points, expected {expected_points}")
    check(data.GetNumberOfVerts() == expected_points, f"{name}: one vertex cell per point")
    pd = data.GetPointData()
    v = pd.GetArray("velocity")
    check(v is not None and v.GetNumberOfComponents() == 3, f"{name}: velocity read back with 3 components")
    ids = pd.GetArray("id")
    if check(ids is not None, f"{name}: ids read back"):
        values = [int(ids.GetValue(i)) for i in range(ids.GetNumberOfTuples())]
        check(len(set(values)) == len(values) == expected_points, f"{name}: ids are unique")
    if v is not None and v.GetNumberOfTuples() > 0:
        check(all(v.GetComponent(i, 2) == 0.0 for i in range(v.GetNumberOfTuples())),
              f"{name}: 2D velocities padded with z = 0")
        lo, hi = v.GetRange(-1)
        check(hi > lo, f"{name}: speeds vary ({lo:.3g} .. {hi:.3g} m/s)")


def check_values(path, out):
    """Every particle of the last step, as ParaView reads it back, equals what the run held (by id):
    positions and 2D vectors padded with z = 0, the 2x2 affine matrix padded to 3x3, the material."""
    import csv

    from vtkmodules.vtkIOXML import vtkXMLPPolyDataReader

    run = {}
    for name in glob.glob(os.path.join(out, "last_step_rank*.csv")):
        with open(name) as f:
            for row in csv.DictReader(f):
                run[int(row["id"])] = row
    reader = vtkXMLPPolyDataReader()
    reader.SetFileName(path)
    reader.Update()
    data = reader.GetOutput()
    pd = data.GetPointData()
    ids, vel, aff, mat = (pd.GetArray(n) for n in ("id", "velocity", "affine_velocity", "material"))
    name = os.path.basename(path)
    if not check(None not in (ids, vel, aff, mat) and len(run) == data.GetNumberOfPoints(),
                 f"{name}: {data.GetNumberOfPoints()} particles read back, {len(run)} in the run's dump"):
        return
    wrong = []
    for i in range(data.GetNumberOfPoints()):
        r = run.get(int(ids.GetValue(i)))
        if r is None:
            wrong.append(f"id {int(ids.GetValue(i))} not in the run")
            continue
        want_point = (float(r["x"]), float(r["y"]), 0.0)
        want_vel = (float(r["vx"]), float(r["vy"]), 0.0)
        c = [float(r[k]) for k in ("c00", "c01", "c10", "c11")]
        want_aff = (c[0], c[1], 0.0, c[2], c[3], 0.0, 0.0, 0.0, 0.0)
        got_aff = tuple(aff.GetComponent(i, k) for k in range(9))
        if (tuple(data.GetPoint(i)) != want_point or vel.GetTuple3(i) != want_vel or got_aff != want_aff
                or int(mat.GetValue(i)) != int(r["material"])):
            wrong.append(f"id {int(ids.GetValue(i))}")
    check(not wrong, f"{name}: positions, velocities, affine matrices and materials equal the run's, bit for bit"
                     + ("" if not wrong else f" ({len(wrong)} differ, e.g. {wrong[:3]})"))


def check_extract(out):
    ranks, expected = read_expected(out)
    folder = os.path.join(out, "insitu")
    found = files_by_step(folder, "particles_", ".pvtp")
    check(sorted(found) == sorted(expected), f"extracts for steps {sorted(expected)} (found {sorted(found)})")
    print("expat shim loaded: " + ("yes" if shim_loaded() else "no"))
    for step in sorted(set(found) & set(expected)):
        check_pvtp_headers(found[step], ranks, expected[step])
        check_paraview_readback(found[step], expected[step])
    last = max(expected)
    if last in found:
        check_values(found[last], out)


# ----------------------------------------------------------------------------------------- render
def png_pixels(path):
    """(width, height, channels, rows) of an 8-bit RGB/RGBA PNG; rows are unfiltered bytes."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace != 0:
        raise ValueError(f"unsupported PNG (depth {depth}, colour type {colour}, interlace {interlace})")
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        if kind == 1:
            for i in range(channels, stride):
                line[i] = (line[i] + line[i - channels]) & 255
        elif kind == 2:
            for i in range(stride):
                line[i] = (line[i] + previous[i]) & 255
        elif kind == 3:
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                line[i] = (line[i] + ((left + previous[i]) >> 1)) & 255
        elif kind == 4:
            for i in range(stride):
                a = line[i - channels] if i >= channels else 0
                b = previous[i]
                c = previous[i - channels] if i >= channels else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        elif kind != 0:
            raise ValueError(f"bad PNG filter {kind} in row {y}")
        rows.append(bytes(line))
        previous = line
    return width, height, channels, rows


def check_png(path, size):
    name = os.path.basename(path)
    try:
        width, height, channels, rows = png_pixels(path)
    except (ValueError, zlib.error, struct.error, TypeError) as e:
        check(False, f"{name}: readable PNG ({e})")
        return
    check((width, height) == size, f"{name}: {width}x{height} pixels, expected {size[0]}x{size[1]}")
    counts = {}
    for row in rows:
        for i in range(0, len(row), channels):
            px = row[i:i + 3]
            counts[px] = counts.get(px, 0) + 1
    background, most = max(counts.items(), key=lambda kv: kv[1])
    covered = 1.0 - most / float(width * height)
    check(len(counts) > 1, f"{name}: not blank ({len(counts)} distinct colours)")
    check(covered > 0.005, f"{name}: {100 * covered:.1f}% of the pixels differ from the background {tuple(background)}")
    check(len(counts) >= 16, f"{name}: a colour gradient ({len(counts)} colours) as velocity magnitudes vary")


def check_render(out):
    _, expected = read_expected(out)
    found = files_by_step(os.path.join(out, "insitu"), "velocity_", ".png")
    check(sorted(found) == sorted(expected), f"images for steps {sorted(expected)} (found {sorted(found)})")
    for step in sorted(found):
        check_png(found[step], (1024, 768))


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("extract", "render"):
        print(__doc__)
        return 2
    mode, out = sys.argv[1], sys.argv[2]
    if mode == "extract":
        check_extract(out)
    else:
        check_render(out)
    print(f"{'PASS' if not FAILURES else 'FAIL'}: {len(FAILURES)} failed check(s)")
    return 0 if not FAILURES else 1


if __name__ == "__main__":
    sys.exit(main())
