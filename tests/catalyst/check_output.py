# Reads a run's HDF5/XDMF output with ParaView's own XDMF reader (pvpython) and compares it with the
# HDF5 files read independently through h5py: every time step, point count and particle field, and
# the grid series. Usage: pvpython check_output.py RUN_DIR EXPECTED_STEPS
# Prints one line per check and "N passed, M failed"; exits 1 on a failure.
import glob
import os
import sys

import h5py
import numpy as np
from paraview.simple import OpenDataFile
from vtk.numpy_interface import dataset_adapter as dsa

run_dir, expected_steps = sys.argv[1], int(sys.argv[2])
passed = failed = 0


def check(ok, what):
    global passed, failed
    print(("ok    " if ok else "FAIL  ") + what)
    if ok:
        passed += 1
    else:
        failed += 1


def fetch(reader, time):
    # pvpython runs a built-in server: the reader's VTK output is in this process. (simple's
    # UpdatePipeline(time=0.0) would treat t = 0 as "no time".)
    reader.UpdatePipeline(time)
    data = reader.GetClientSideObject().GetOutputDataObject(0)
    if data.IsA("vtkMultiBlockDataSet") or data.IsA("vtkPartitionedDataSetCollection"):
        data = data.GetBlock(0)
    return dsa.WrapDataObject(data)


particles = OpenDataFile(os.path.join(run_dir, "particles.xdmf"))
times = list(particles.TimestepValues)
files = sorted(glob.glob(os.path.join(run_dir, "particles_*.h5")))
check(len(times) == len(files) == expected_steps, f"{len(times)} time steps in particles.xdmf, {len(files)} files")
for h5name, t in zip(files, times):
    with h5py.File(h5name, "r") as h5:
        data = fetch(particles, t)
        n = h5["position"].shape[0]
        check(data.GetNumberOfPoints() == n == h5.attrs["particle_count"],
              f"{os.path.basename(h5name)}: {data.GetNumberOfPoints()} points read, {n} written")
        check(np.array_equal(np.asarray(data.Points), h5["position"][...]), "positions equal")
        names = [k for k in h5.keys() if k not in ("position", "point_index")]
        bad = [k for k in names if not np.array_equal(np.asarray(data.PointData[k]).reshape(h5[k].shape), h5[k][...])]
        check(not bad, f"{len(names)} fields equal" + (f" (differ: {bad})" if bad else ""))

grid_files = sorted(glob.glob(os.path.join(run_dir, "grid_*.h5")))
if grid_files:
    grid = OpenDataFile(os.path.join(run_dir, "grid.xdmf"))
    for h5name, t in zip(grid_files, list(grid.TimestepValues)):
        with h5py.File(h5name, "r") as h5:
            data = fetch(grid, t)
            mass = h5["mass"][...]
            check(data.GetNumberOfPoints() == mass.size, f"{os.path.basename(h5name)}: {mass.size} grid nodes")
            check(np.array_equal(np.asarray(data.PointData["mass"]).ravel(), mass.ravel()), "grid mass equal")

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
