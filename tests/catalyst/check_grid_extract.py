# Reads the in-situ grid extracts (grid_*.pvti) with ParaView's reader: the pieces of all ranks form
# the whole grid, and its nodal mass adds up to the particles' mass (partition of unity).
# Usage: pvpython check_grid_extract.py INSITU_DIR PARTICLE_MASS
import glob
import sys

import numpy as np
from paraview.simple import OpenDataFile
from vtk.numpy_interface import dataset_adapter as dsa

files = sorted(glob.glob(sys.argv[1] + "/grid_*.pvti"))
particle_mass = float(sys.argv[2])
failed = 0
for f in files:
    reader = OpenDataFile(f)
    reader.UpdatePipeline()
    data = dsa.WrapDataObject(reader.GetClientSideObject().GetOutputDataObject(0))
    e = data.GetExtent()
    nodes = (e[1] - e[0] + 1) * (e[3] - e[2] + 1) * (e[5] - e[4] + 1)
    mass = float(np.sum(data.PointData["mass"]))
    ok = data.GetNumberOfPoints() == nodes > 1 and abs(mass - particle_mass) <= 1e-12 * particle_mass
    failed += 0 if ok else 1
    print(("ok    " if ok else "FAIL  ") + f"{f.split('/')[-1]}: {data.GetNumberOfPoints()} nodes, grid mass {mass!r}, "
          f"particle mass {particle_mass!r}")
print(f"{len(files) - failed} passed, {failed} failed")
sys.exit(1 if failed or not files else 0)
