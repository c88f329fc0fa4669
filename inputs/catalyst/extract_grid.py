# script-version: 2
# Meniscus in-situ pipeline: writes the method's grid (MPM: nodal mass and velocity) of every call
# as a parallel image extract, grid_NNNNNN.pvti, one .vti piece per rank. Using the "grid" channel
# makes the adaptor build the grid (one particle-to-grid transfer per call); scripts that do not
# name it cost nothing extra.
#
# Deck:  insitu: {script: catalyst/extract_grid.py, every: 10}
# Neighbouring pieces share their boundary nodes, as VTK's parallel image pieces expect.
import os

from paraview import catalyst
from paraview.simple import *  # noqa: F401,F403

grid = PVTrivialProducer(registrationName="grid")

extract = CreateExtractor("VTI", grid, registrationName="grid_vti")
extract.Trigger = "TimeStep"
extract.Trigger.Frequency = 1
extract.Writer.FileName = "grid_{timestep:06d}.pvti"
extract.Writer.DataMode = "Appended"

options = catalyst.Options()
options.GlobalTrigger = "TimeStep"
options.GlobalTrigger.Frequency = 1
options.ExtractsOutputDirectory = os.environ.get("MENISCUS_INSITU_OUTPUT", "insitu")
