# Reads the in-situ membrane extracts (membrane_*.pvtp, catalyst/extract_membrane.py) with ParaView's
# reader and compares each with the run's own membrane file of the same step (membrane_NNNNNN.h5,
# read with h5py): the same vertices, velocities and cells, exactly, and the cell type of the
# dimension (2D: lines of 2 vertices, 3D: triangles).
# Usage: pvpython check_membrane_extract.py RUN_DIR DIMENSION EXPECTED_EXTRACTS
import glob
import os
import sys

import h5py
import numpy as np
from paraview.simple import OpenDataFile
from vtk.numpy_interface import dataset_adapter as dsa

run_dir, dim, expected = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
files = sorted(glob.glob(os.path.join(run_dir, "insitu", "membrane_*.pvtp")))
failed = 0 if len(files) == expected else 1
print(("ok    " if not failed else "FAIL  ") + f"{len(files)} membrane extracts, expected {expected}")
per_cell = 2 if dim == 2 else 3
for f in files:
    step = os.path.basename(f)[len("membrane_"):-len(".pvtp")]
    reader = OpenDataFile(f)
    reader.UpdatePipeline()
    vtk_data = reader.GetClientSideObject().GetOutputDataObject(0)
    data = dsa.WrapDataObject(vtk_data)
    with h5py.File(os.path.join(run_dir, f"membrane_{step}.h5"), "r") as h5:
        position, velocity = h5["position"][...], h5["velocity"][...]
        cells = h5["segments" if dim == 2 else "triangles"][...]
    points = np.asarray(data.Points)
    array = vtk_data.GetLines() if dim == 2 else vtk_data.GetPolys()
    offsets = dsa.vtkDataArrayToVTKArray(array.GetOffsetsArray())
    connectivity = dsa.vtkDataArrayToVTKArray(array.GetConnectivityArray())
    ok = (points.shape == position.shape and np.array_equal(points, position)
          and np.array_equal(np.asarray(data.PointData["velocity"]), velocity)
          and array.GetNumberOfCells() == len(cells) > 0
          and np.array_equal(np.diff(np.asarray(offsets)), np.full(len(cells), per_cell))
          and np.array_equal(np.asarray(connectivity).reshape(-1, per_cell), cells))
    failed += 0 if ok else 1
    print(("ok    " if ok else "FAIL  ") + f"{os.path.basename(f)}: {len(points)} vertices, "
          f"{array.GetNumberOfCells()} {'segments' if dim == 2 else 'triangles'} (file: {len(position)}, {len(cells)})")
sys.exit(1 if failed else 0)
